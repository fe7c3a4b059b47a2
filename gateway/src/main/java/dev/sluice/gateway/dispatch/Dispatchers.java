package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import dev.sluice.gateway.config.ProviderSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One {@link ProviderDispatcher} per provider budget (provider and model, or the provider's
 * catch-all), created on first use, all sharing one loop thread. Limits are read from the
 * configuration in force at each use, so a tiers.yaml edit applies to the next dispatch.
 */
public final class Dispatchers {
    private final ProviderBudgetStore store;
    private final ConfigRegistry config;
    private final DispatchProperties settings;
    private final Clock clock;
    private final Scheduler loop;
    private final MeterRegistry meters;
    private final Map<String, ProviderDispatcher> byKey = new ConcurrentHashMap<>();
    private final PendingWork pending;
    private final ProviderCalibration calibration;
    private volatile boolean closed;

    public Dispatchers(ProviderBudgetStore store, ConfigRegistry config, DispatchProperties settings, Clock clock, Scheduler loop,
                       MeterRegistry meters, PendingWork pending, ProviderCalibration calibration) {
        this.pending = pending;
        this.calibration = calibration;
        this.store = store;
        this.config = config;
        this.settings = settings;
        this.clock = clock;
        this.loop = loop;
        this.meters = meters;
    }

    /** The dispatcher for {@code model} at the upstream provider, or null when the provider publishes no limits for it. */
    public ProviderDispatcher forModel(String model) {
        ProviderSettings provider = config.current().providers().get(0);
        if (provider.limitsFor(model) == null) return null; // every request asks: a lookup, not the budget's limits built
        String key = ProviderBudgetStore.key(provider, model);
        return byKey.computeIfAbsent(key, k -> {
            calibration.register(k); // its ratio gauge, at the default from start
            BudgetLimits initial = limitsOf(provider, model);
            ProviderDispatcher d = new ProviderDispatcher(k, store, () -> limitsNow(model, initial),
                    new AimdLimit(AimdLimit.Settings.startingAt(initial.maxInFlight())),
                    settings.queueCapacity(), settings.interactiveFloor(), settings.storeTimeout(), clock, loop, meters,
                    pending);
            if (closed) d.close().subscribe(); // created during shutdown: closed from the start
            return d;
        });
    }

    /**
     * A dispatcher for every model the provider lists ("*" included), made now rather than on
     * its first request: their meters (queue wait, depth, in flight, budget use) are on the
     * dashboard from start. Budgets of models added later still come on first use.
     */
    public void createConfigured() {
        config.current().providers().get(0).models().keySet().forEach(this::forModel);
    }

    /** Shutdown: every budget's line is emptied (busy) and takes no more; calls in flight go on. */
    public Mono<Void> close() {
        closed = true;
        return Flux.fromIterable(byKey.values()).flatMap(ProviderDispatcher::close).then();
    }

    /** Undoes {@link #close()} when the context starts again after a stop. */
    public void open() {
        closed = false;
        byKey.values().forEach(ProviderDispatcher::open);
    }

    private BudgetLimits limitsNow(String model, BudgetLimits fallback) {
        BudgetLimits now = limitsOf(config.current().providers().get(0), model);
        return now == null ? fallback : now;
    }

    private BudgetLimits limitsOf(ProviderSettings provider, String model) {
        BudgetLimits limits = BudgetLimits.of(provider, model, settings.lease());
        return limits == null ? null : limits.withCountDelay(settings.countDelay().toMillis());
    }

    /** Every budget's dispatcher made so far. */
    public java.util.Collection<ProviderDispatcher> all() {
        return byKey.values();
    }

    public DispatchProperties settings() {
        return settings;
    }

    /** What each budget learned of the provider's token count. */
    public ProviderCalibration calibration() {
        return calibration;
    }
}
