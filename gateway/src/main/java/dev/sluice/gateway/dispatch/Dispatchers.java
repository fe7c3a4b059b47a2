package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.api.ShutdownDrain;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.store.DecisionBudget;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One {@link ProviderDispatcher} per provider budget (provider and model, or the provider's
 * catch-all), created on first use, all sharing one loop thread (so a request can choose among a
 * route's budgets in one step), and one {@link ProviderHealth} per provider. Limits are read from the
 * configuration in force at each use, so a tiers.yaml edit applies to the next dispatch.
 */
public final class Dispatchers implements ShutdownDrain.Lines {
    /** Each provider's circuit: 0 closed, 1 open (stepped around after failures), 2 probing (one call tests it). */
    public static final String CIRCUIT = "sluice.provider.circuit";

    private static final Logger log = LoggerFactory.getLogger(Dispatchers.class);
    private final ProviderBudgetStore store;
    private final ConfigRegistry config;
    private final DispatchProperties settings;
    private final Clock clock;
    private final Scheduler loop;
    private final MeterRegistry meters;
    private final Map<String, ProviderDispatcher> byKey = new ConcurrentHashMap<>();
    private final Map<String, ProviderHealth> health = new ConcurrentHashMap<>();
    private final ProviderHealth.Settings healthSettings;
    private final PendingWork pending;
    private final ProviderCalibration calibration;
    private volatile boolean closed;
    /** The replicas share their lanes (LaneSharing with a store): every dispatcher counts the fleet from its start. */
    private volatile boolean lanesShared;

    public Dispatchers(
            ProviderBudgetStore store,
            ConfigRegistry config,
            DispatchProperties settings,
            Clock clock,
            Scheduler loop,
            MeterRegistry meters,
            PendingWork pending,
            ProviderCalibration calibration) {
        this.pending = pending;
        this.calibration = calibration;
        this.store = store;
        this.config = config;
        this.settings = settings;
        this.clock = clock;
        this.loop = loop;
        this.meters = meters;
        DispatchProperties.Failover f = settings.failover();
        this.healthSettings = new ProviderHealth.Settings(
                f.failures(),
                f.cooldown().toMillis(),
                f.maxCooldown().toMillis(),
                f.probeTimeout().toMillis());
    }

    /** The dispatcher for {@code model} at {@code provider}, or null when the provider publishes no limits for it. */
    public ProviderDispatcher forModel(ProviderSettings provider, String model) {
        if (provider.limitsFor(model) == null)
            return null; // every request asks: a lookup, not the budget's limits built
        String key = ProviderBudgetStore.key(provider, model);
        ProviderDispatcher known = byKey.get(key);
        if (known != null) return known;
        return byKey.computeIfAbsent(key, k -> {
            calibration.register(k); // its ratio gauge, at the default from start
            BudgetLimits initial = limitsOf(provider, model);
            String name = provider.name();
            ProviderDispatcher d = new ProviderDispatcher(
                    DispatcherSettings.of(k, store, () -> limitsNow(name, model, initial), clock, loop, meters)
                            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(initial.maxInFlight())))
                            .withQueue(settings.queueCapacity(), settings.interactiveFloor())
                            .withStoreTimeout(settings.storeTimeout())
                            .withPending(pending)
                            .withHealth(health(name)));
            if (closed) d.close().subscribe(); // created during shutdown: closed from the start
            if (lanesShared) d.sharesLanes();
            return d;
        });
    }

    /**
     * The circuit of provider {@code name}, shared by its budgets: created on first use, with a
     * gauge (0 closed, 1 open, 2 probing).
     */
    public ProviderHealth health(String name) {
        return health.computeIfAbsent(name, n -> {
            ProviderHealth h = new ProviderHealth(healthSettings);
            Gauge.builder(CIRCUIT, h, x -> x.state().ordinal())
                    .tag("provider", n)
                    .description("The provider's circuit: 0 closed, 1 open (stepped around), 2 probing")
                    .register(meters);
            return h;
        });
    }

    /** A call to {@code provider} showed it alive: a circuit that closes lets its lines go at once. */
    public void answered(String provider) {
        if (health(provider).answered()) {
            log.info("Provider {} answers again: its circuit is closed", provider);
            byKey.values().forEach(d -> {
                if (d.provider().equals(provider)) d.wake();
            });
        }
    }

    /** A call to {@code provider} failed: a circuit that opens sends its waiting requests to be routed again. */
    public void failed(String provider) {
        ProviderHealth h = health(provider);
        if (h.failed(clock.millis())) {
            log.warn(
                    "Provider {} is failing: stepped around for {} ms, then probed",
                    provider,
                    h.blockedForMs(clock.millis()));
            byKey.values().forEach(d -> {
                if (d.provider().equals(provider)) d.spillWaiting();
            });
        }
    }

    /**
     * A dispatcher for every model every provider lists ("*" included), made now rather than on
     * its first request: their meters (queue wait, depth, in flight, budget use) are on the
     * dashboard from start. Budgets of models added later still come on first use.
     */
    public void createConfigured() {
        for (ProviderSettings p : config.current().providers()) {
            health(p.name());
            p.models().keySet().forEach(model -> forModel(p, model));
        }
    }

    /** Into the line of one of {@code route}'s budgets: see {@link RouteChoice#enter} (spill wait from the settings). */
    public Mono<Lease> submit(List<ProviderDispatcher.Candidate> route, long maxWaitMs) {
        return submit(route, maxWaitMs, DecisionBudget.UNLIMITED);
    }

    /** The same for a request with {@code budget} left to wait on the store before it is sent. */
    public Mono<Lease> submit(List<ProviderDispatcher.Candidate> route, long maxWaitMs, DecisionBudget budget) {
        return RouteChoice.enter(route, maxWaitMs, settings.spillWait().toMillis(), false, budget);
    }

    /** Shutdown: every budget's line is emptied (busy) and takes no more; calls in flight go on. */
    @Override
    public Mono<Void> close() {
        closed = true;
        return Flux.fromIterable(byKey.values())
                .flatMap(ProviderDispatcher::close)
                .then();
    }

    /** Undoes {@link #close()} when the context starts again after a stop. */
    @Override
    public void open() {
        closed = false;
        byKey.values().forEach(ProviderDispatcher::open);
    }

    /** The limits in force: the provider's as configured now, or the first ones if it left the configuration. */
    private BudgetLimits limitsNow(String provider, String model, BudgetLimits fallback) {
        ProviderSettings p = config.current().provider(provider).orElse(null);
        BudgetLimits now = p == null ? null : limitsOf(p, model);
        return now == null ? fallback : now;
    }

    private BudgetLimits limitsOf(ProviderSettings provider, String model) {
        BudgetLimits limits = BudgetLimits.of(provider, model, settings.lease());
        return limits == null
                ? null
                : limits.withCountDelay(settings.countDelay().toMillis());
    }

    /**
     * The replicas share their fair queues' lanes (a store, and {@code sluice.dispatch.fair-share.enabled}):
     * each dispatcher, made now or later, confirms its door's promises only once the fleet's view holds
     * them, from its first request, not from its first share (a replica that took a burst before its first
     * tick confirmed it on the budget alone, and two doors promised the same minute).
     */
    public void shareLanes() {
        lanesShared = true;
        byKey.values().forEach(ProviderDispatcher::sharesLanes);
    }

    /** Every budget's dispatcher made so far. */
    public Collection<ProviderDispatcher> all() {
        return byKey.values();
    }

    /** The providers configured now. */
    public List<ProviderSettings> providers() {
        return config.current().providers();
    }

    public DispatchProperties settings() {
        return settings;
    }

    /** What each budget learned of the provider's token count. */
    public ProviderCalibration calibration() {
        return calibration;
    }
}
