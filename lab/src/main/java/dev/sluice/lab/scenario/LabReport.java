package dev.sluice.lab.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.sluice.lab.provider.LabLimits;
import java.util.List;
import java.util.Objects;

/**
 * The lab report (docs/lab.md, the contract shared with the admin UI): what each case did to
 * the provider and to the books. Every time is in seed units, whatever the run's time factor.
 */
public record LabReport(String generatedAt, Limits limits, Scale scale, List<CaseResult> cases, List<RampResult> ramp) {
    public LabReport {
        Objects.requireNonNull(generatedAt, "generatedAt");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(scale, "scale");
        cases = List.copyOf(cases);
        ramp = List.copyOf(ramp);
    }

    /** The provider's limits, in seed units. */
    public record Limits(
            long requestsPerMinute,
            long tokensPerMinute,
            int maxInFlight,
            double pricePerMillionTokens,
            long latencyMs) {
        public static Limits of(LabLimits l) {
            return new Limits(
                    l.requestsPerMinute(),
                    l.tokensPerMinute(),
                    l.maxInFlight(),
                    l.pricePerMillionTokens(),
                    l.latency().toMillis());
        }
    }

    public record Scale(double timeFactor, String note) {}

    /** When and where a page was first refused; {@code limit} as in {@link FailureLimit#wire()}. */
    public record Failure(double second, int users, String limit) {}

    /**
     * One second of a run in the provider's own measure: the tokens its rolling window held and the
     * calls it had in flight (both at their highest within the second), the tokens it admitted in the
     * second, its refusals, and ours (limiter, door, pool).
     */
    public record TimelinePoint(
            int second, long admittedTokens, long tokensInWindow, int inFlight, long providerErrors, long refusals) {}

    /** {@code tokensPerMinuteLimit} and {@code inFlightLimit}: the provider's, the lines the timeline is drawn against. */
    public record CaseResult(
            String id,
            String title,
            int users,
            double durationSeconds,
            long pagesSent,
            long pagesDied,
            long booksTotal,
            long booksClean,
            double billUsd,
            double wastedUsd,
            Failure firstFailure,
            long waitP50Ms,
            long waitP95Ms,
            long busyAnswers,
            long limiterRefusals,
            long tokensPerMinuteLimit,
            int inFlightLimit,
            List<TimelinePoint> timeline) {
        public CaseResult {
            timeline = List.copyOf(timeline);
        }
    }

    public record Step(double second, int users) {}

    /** {@code case} in JSON: a keyword in Java. */
    public record RampResult(
            @JsonProperty("case") String caseId,
            Failure firstFailure,
            List<Step> steps,
            long tokensPerMinuteLimit,
            int inFlightLimit,
            List<TimelinePoint> timeline) {
        public RampResult {
            steps = List.copyOf(steps);
            timeline = List.copyOf(timeline);
        }
    }
}
