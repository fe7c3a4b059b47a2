package dev.sluice.gateway.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The meters of one provider budget's dispatcher, tagged with the budget (docs/metrics.md). */
final class DispatcherMeters {
    private DispatcherMeters() {
    }

    /** Registers the gauges, which read {@code dispatcher} as they are scraped, and returns the queue-wait timer. */
    static Timer register(MeterRegistry meters, String key, ProviderDispatcher dispatcher, AimdLimit aimd, AtomicInteger inFlight) {
        Tag budget = Tag.of("budget", key);
        meters.gauge("sluice.queue.depth", List.of(budget), dispatcher, ProviderDispatcher::depth);
        meters.gauge("sluice.concurrency.limit", List.of(budget), aimd, AimdLimit::limit);
        meters.gauge("sluice.inflight", List.of(budget), inFlight);
        meters.gauge("sluice.budget.utilisation", List.of(budget, Tag.of("unit", "tokens")), dispatcher,
                d -> d.seenNow().tokenUtilisation());
        meters.gauge("sluice.budget.utilisation", List.of(budget, Tag.of("unit", "requests")), dispatcher,
                d -> d.seenNow().requestUtilisation());
        // Only where the provider limits input and output apart (as declared at start).
        BudgetLimits limits = dispatcher.limits();
        if (limits.inputTokensPerMinute() > 0) {
            meters.gauge("sluice.budget.utilisation", List.of(budget, Tag.of("unit", "input_tokens")), dispatcher,
                    d -> d.seenNow().inputUtilisation());
        }
        if (limits.outputTokensPerMinute() > 0) {
            meters.gauge("sluice.budget.utilisation", List.of(budget, Tag.of("unit", "output_tokens")), dispatcher,
                    d -> d.seenNow().outputUtilisation());
        }
        return Timer.builder("sluice.queue.wait").tag("budget", key).publishPercentileHistogram()
                .description("Time requests wait in the dispatch queue").register(meters);
    }
}
