package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.support.PercentSummary;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The meters of one provider budget's dispatcher (docs/metrics.md). Each carries the budget
 * ({@code provider:model}, which dashboards and alerts already read) and, beside it, the
 * {@code provider} and {@code model} apart, so a query can sum or compare providers without
 * parsing the budget's name.
 */
public final class DispatcherMeters {
    public static final String QUEUE_DEPTH = "sluice.queue.depth";
    public static final String CONCURRENCY_LIMIT = "sluice.concurrency.limit";
    public static final String IN_FLIGHT = "sluice.inflight";
    /** Tagged {@code unit}: tokens, requests, and input_tokens, output_tokens where the provider limits them apart. */
    public static final String UTILISATION = "sluice.budget.utilisation";

    public static final String PAUSED = "sluice.budget.paused";
    public static final String QUEUE_WAIT = "sluice.queue.wait";
    /** Actual wait over the door's estimate, in percent ({@link PercentSummary}); read by the admin overview. */
    public static final String WAIT_OF_ESTIMATE = "sluice.queue.wait.of.estimate";

    static final long ESTIMATE_FLOOR_MS = 100;

    private DispatcherMeters() {}

    /** Registers the gauges, which read {@code dispatcher} as they are scraped, and returns the queue-wait timer. */
    static Timer register(
            MeterRegistry meters, String key, ProviderDispatcher dispatcher, AimdLimit aimd, AtomicInteger inFlight) {
        List<Tag> budget = budgetTags(key, dispatcher);
        meters.gauge(QUEUE_DEPTH, budget, dispatcher, ProviderDispatcher::depth);
        meters.gauge(CONCURRENCY_LIMIT, budget, aimd, AimdLimit::limit);
        meters.gauge(IN_FLIGHT, budget, inFlight);
        utilisation(meters, budget, dispatcher, "tokens", BudgetSnapshot::tokenUtilisation);
        utilisation(meters, budget, dispatcher, "requests", BudgetSnapshot::requestUtilisation);
        // Only where the provider limits input and output apart (as declared at start).
        BudgetLimits limits = dispatcher.limits();
        if (limits.inputTokensPerMinute() > 0)
            utilisation(meters, budget, dispatcher, "input_tokens", BudgetSnapshot::inputUtilisation);
        if (limits.outputTokensPerMinute() > 0)
            utilisation(meters, budget, dispatcher, "output_tokens", BudgetSnapshot::outputUtilisation);
        // A provider's 429 pauses its budget for every replica: how long is left, as this replica last saw it.
        Gauge.builder(PAUSED, dispatcher, d -> d.seenNow().pausedForMs() / 1000.0)
                .tags(budget)
                .baseUnit("seconds")
                .description("Time left in the pause the provider asked for (0 when not paused)")
                .register(meters);
        return Timer.builder(QUEUE_WAIT)
                .tags(budget)
                .publishPercentileHistogram()
                .description("Time requests wait in the dispatch queue")
                .register(meters);
    }

    /**
     * The door's estimate against what came true: actual wait / estimated wait of each admitted
     * request as it starts, in percent, waits under {@link #ESTIMATE_FLOOR_MS} counted as that (a
     * start "at once" either way is 100 %, not a division by zero).
     */
    static DistributionSummary estimateError(MeterRegistry meters, String key, ProviderDispatcher dispatcher) {
        return PercentSummary.register(
                meters,
                WAIT_OF_ESTIMATE,
                budgetTags(key, dispatcher),
                "Actual wait in the dispatch queue as a percent of the door's estimate, per admitted request",
                0.25,
                0.5,
                0.8,
                0.9,
                1.0,
                1.1,
                1.2,
                1.5,
                2,
                4);
    }

    /** The budget's tags: its key, and its provider and model apart. */
    private static List<Tag> budgetTags(String key, ProviderDispatcher dispatcher) {
        return List.of(
                Tag.of("budget", key), Tag.of("provider", dispatcher.provider()), Tag.of("model", dispatcher.model()));
    }

    /** The share of the budget used in {@code unit}, as the dispatcher last saw it, aged to each scrape. */
    private static void utilisation(
            MeterRegistry meters,
            List<Tag> budget,
            ProviderDispatcher dispatcher,
            String unit,
            ToDoubleFunction<BudgetSnapshot> share) {
        meters.gauge(UTILISATION, with(budget, "unit", unit), dispatcher, d -> share.applyAsDouble(d.seenNow()));
    }

    private static List<Tag> with(List<Tag> tags, String key, String value) {
        return Stream.concat(tags.stream(), Stream.of(Tag.of(key, value))).toList();
    }

    /**
     * A job waited {@code queuedMs} in line for its lease: the wait, and how far the door's
     * estimate ({@code estimatedMs}; negative: none was given) was from it.
     */
    static void waited(Timer queueWait, DistributionSummary estimateError, long queuedMs, long estimatedMs) {
        queueWait.record(queuedMs, TimeUnit.MILLISECONDS);
        if (estimatedMs >= 0) {
            estimateError.record(
                    (double) Math.max(ESTIMATE_FLOOR_MS, queuedMs) / Math.max(ESTIMATE_FLOOR_MS, estimatedMs));
        }
    }
}
