package dev.sluice.gateway.dispatch.calibration;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * This replica's {@link TokenCalibration} of every provider budget, and the others' through the
 * {@link CalibrationStore}. Answers feed {@link #observe}; the ratio charged is {@link #ratio}:
 * this replica's live state combined with what the others last shared, weighted by samples.
 * At most one store call per budget is under way, at most every {@code syncEvery}, bounded by
 * {@code storeTimeout}; a store that fails leaves this replica on its own ratio until it answers.
 */
public final class ProviderCalibration {
    /** The gauge: the ratio charged now, per provider and model (docs/metrics.md). */
    public static final String GAUGE = "sluice.provider.token.ratio";

    private static final Logger log = LoggerFactory.getLogger(ProviderCalibration.class);

    private final CalibrationStore store;
    private final TokenCalibration.Settings settings;
    private final long syncEveryMs;
    private final long maxAgeMs;
    private final Duration storeTimeout;
    private final Clock clock;
    private final MeterRegistry meters;
    private final String replica = UUID.randomUUID().toString();
    private final Map<String, Budget> budgets = new ConcurrentHashMap<>();

    /** One budget's calibration on this replica. */
    private final class Budget {
        final AtomicReference<TokenCalibration.State> mine = new AtomicReference<>(settings.initial());
        /** The other replicas' states as last read; empty until read, and while the store fails. */
        volatile List<TokenCalibration.State> others = List.of();

        volatile long nextSyncMs = Long.MIN_VALUE;
        final AtomicBoolean syncing = new AtomicBoolean();

        double ratio() {
            return TokenCalibration.combine(mine.get(), others, settings); // every request charges by it: no copy
        }
    }

    public ProviderCalibration(
            CalibrationStore store,
            TokenCalibration.Settings settings,
            Duration syncEvery,
            Duration maxAge,
            Duration storeTimeout,
            Clock clock,
            MeterRegistry meters) {
        this.store = store;
        this.settings = settings;
        this.syncEveryMs = syncEvery.toMillis();
        this.maxAgeMs = maxAge.toMillis();
        this.storeTimeout = storeTimeout;
        this.clock = clock;
        this.meters = meters;
    }

    /** Registers the budget's gauge (at the default ratio until answers come); called as its dispatcher is made. */
    public void register(String budgetKey) {
        budget(budgetKey);
    }

    /** The ratio to charge the provider budget {@code budgetKey} with now; shares and reads when due. */
    public double ratio(String budgetKey) {
        Budget b = budget(budgetKey);
        maybeShare(budgetKey, b);
        return b.ratio();
    }

    /** The ratio as known now, no store call: the gauge's and the overview's. */
    public double current(String budgetKey) {
        Budget b = budgets.get(budgetKey);
        return b == null ? settings.defaultRatio() : b.ratio();
    }

    /** The provider counted {@code counted} prompt tokens where Sluice estimated {@code estimated}. */
    public void observe(String budgetKey, long estimated, long counted) {
        Budget b = budget(budgetKey);
        b.mine.updateAndGet(s -> TokenCalibration.observe(s, settings, estimated, counted));
        maybeShare(budgetKey, b);
    }

    public TokenCalibration.Settings settings() {
        return settings;
    }

    private Budget budget(String key) {
        return budgets.computeIfAbsent(key, k -> {
            Budget b = new Budget();
            int colon = k.indexOf(':');
            Gauge.builder(GAUGE, b, Budget::ratio)
                    .tag("provider", colon < 0 ? k : k.substring(0, colon))
                    .tag("model", colon < 0 ? "*" : k.substring(colon + 1))
                    .description(
                            "Provider-counted prompt tokens per estimated prompt token, as the provider budget is charged")
                    .register(meters);
            return b;
        });
    }

    /** One share of this budget when due, in the background; nothing waits for it. */
    private void maybeShare(String key, Budget b) {
        long now = clock.millis();
        if (now < b.nextSyncMs || !b.syncing.compareAndSet(false, true)) return;
        b.nextSyncMs = now + syncEveryMs;
        CalibrationStore.Entry mine = new CalibrationStore.Entry(b.mine.get(), now);
        Mono.defer(() -> store.share(key, replica, mine, maxAgeMs))
                .timeout(storeTimeout)
                .doFinally(s -> b.syncing.set(false))
                .subscribe(
                        entries -> {
                            List<TokenCalibration.State> others = new ArrayList<>();
                            entries.forEach((r, e) -> {
                                if (!r.equals(replica)) others.add(e.state());
                            });
                            b.others = List.copyOf(others);
                        },
                        error -> {
                            log.debug("Calibration of {} not shared: {}", key, error.toString());
                            b.others = List.of(); // on our own until the store answers
                        });
    }
}
