package dev.sluice.gateway.abuse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The abuse signal, pure: a tenant sitting at or above {@code threshold} of its
 * ceiling for {@code consecutiveMinutes} or more consecutive minutes. A minute's measure is its
 * {@link UsageSample#pressure()}: the {@link CeilingSignal} (a minute refused, held or out of
 * room counts as at the ceiling whatever the window held as it ended). A minute with no sample
 * (the tenant sent nothing) is idle and breaks the run, so burst-and-idle use never adds up.
 *
 * <p>One open flag per tenant: while one is open nothing new is raised. After a flag is closed
 * (dismissed or confirmed) at time R, only minutes starting at or after R count: if the
 * pattern goes on, a new flag opens once it has lasted {@code consecutiveMinutes} again after
 * the review, so an operator who dismissed a flag is asked again only on fresh evidence.
 */
public final class CeilingDetector {
    /** Minutes of series kept in a flag's evidence before the run itself, for context. */
    public static final int CONTEXT_MINUTES = 30;

    /** A run of minutes at the ceiling: the first minute's start and how many minutes. */
    public record Run(long startMs, int minutes) {}

    /** What to flag: the run and the evidence (the series from before the run to its end). */
    public record Finding(Run run, List<UsageSample> evidence) {
        public Finding {
            evidence = List.copyOf(evidence);
        }
    }

    private final double threshold;
    private final int consecutiveMinutes;

    public CeilingDetector(double threshold, int consecutiveMinutes) {
        if (!(threshold > 0 && threshold <= 1)) throw new IllegalArgumentException("threshold must be in (0, 1]");
        if (consecutiveMinutes < 1) throw new IllegalArgumentException("consecutiveMinutes must be positive");
        this.threshold = threshold;
        this.consecutiveMinutes = consecutiveMinutes;
    }

    /** The minutes a series must cover, before {@code lastMinuteMs}, for {@link #evaluate} to see a whole run and its context. */
    public long lookbackMs() {
        return (long) (consecutiveMinutes + CONTEXT_MINUTES) * 60_000L;
    }

    /**
     * The run of consecutive minutes at the ceiling that ends with the minute starting at
     * {@code lastMinuteMs}, counting only minutes starting at or after {@code notBeforeMs};
     * zero minutes when that minute is missing or below the threshold.
     */
    public Run trailingRun(List<UsageSample> series, long lastMinuteMs, long notBeforeMs) {
        Map<Long, UsageSample> byMinute = new HashMap<>();
        for (UsageSample s : series) byMinute.put(s.minuteStartMs(), s);
        int minutes = 0;
        long m = lastMinuteMs;
        while (m >= notBeforeMs) {
            UsageSample s = byMinute.get(m);
            if (s == null || s.pressure() < threshold) break;
            minutes++;
            m -= 60_000L;
        }
        return new Run(lastMinuteMs - (minutes - 1) * 60_000L, minutes);
    }

    /**
     * Whether to open a flag after the minute starting at {@code lastMinuteMs} was sampled.
     *
     * @param notBeforeMs when the tenant's last flag was closed (0 if never): earlier minutes do not count
     * @param flagOpen    whether the tenant has an open flag (then nothing is raised)
     */
    public Optional<Finding> evaluate(List<UsageSample> series, long lastMinuteMs, long notBeforeMs, boolean flagOpen) {
        if (flagOpen) return Optional.empty();
        Run run = trailingRun(series, lastMinuteMs, notBeforeMs);
        if (run.minutes() < consecutiveMinutes) return Optional.empty();
        long from = run.startMs() - CONTEXT_MINUTES * 60_000L;
        List<UsageSample> evidence = new ArrayList<>();
        for (UsageSample s : series)
            if (s.minuteStartMs() >= from && s.minuteStartMs() <= lastMinuteMs) evidence.add(s);
        evidence.sort(Comparator.comparingLong(UsageSample::minuteStartMs));
        return Optional.of(new Finding(run, evidence));
    }
}
