package dev.sluice.gateway.simulation;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import dev.sluice.gateway.config.LadderSettings;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.degrade.DegradationLadder;
import dev.sluice.gateway.degrade.LadderDecision;
import dev.sluice.gateway.dispatch.Dispatchers;
import dev.sluice.gateway.dispatch.SimulationSeams;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ReplicaLeases;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.calibration.CalibrationStore;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.dispatch.health.ProviderFailingException;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.quota.BatchedSettlements;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * One gateway replica, built of the production parts as DispatchConfiguration and
 * QuotaConfiguration build them (their stores in memory, shared with the other replicas where the
 * world has "Redis"), on the one virtual clock: its own quota limiter, ladder, provider
 * calibration, dispatchers (one loop: the virtual-time scheduler), lane sharing and, with Redis,
 * its slices of the shared budgets. The request path from the quota stage on is mirrored here
 * (QuotaFilter, LadderFilter, SettleFilter) and in {@link DispatchPath} (DispatchFilter): only
 * the HTTP around them is left out.
 */
final class SimReplica {
    /** {@code -Dsluice.sim.lines}: each line's lanes in the trace at every lease (read once, not per lease). */
    private static final boolean TRACE_LINES = Boolean.getBoolean("sluice.sim.lines");

    static final Duration STORE_TIMEOUT = Duration.ofMillis(500); // sluice.store.timeout
    static final Duration DISPATCH_STORE_TIMEOUT = Duration.ofSeconds(2); // sluice.dispatch.store-timeout

    final int index;
    final VirtualTimeScheduler time;
    final SimClock clock;
    final Simulation sim;
    final Trace trace;
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final PendingWork pending = new PendingWork();
    final ConfigRegistry config;
    final ProviderBudgetStore budgets;
    final ReplicaLeases leases; // null without slices
    final QuotaLimiter quota;
    final ProviderCalibration calibration;
    final Dispatchers dispatchers;
    final LaneSharing sharing;
    final DegradationLadder ladder;
    final Map<String, SimProvider> providers;
    final DispatchPath dispatch;
    /** LadderFilter.held: requests held on a delay right now. */
    private final AtomicInteger held = new AtomicInteger();

    SimReplica(Simulation sim, int index, ConfigRegistry config, DispatchProperties settings, SplittableRandom random) {
        World w = sim.world;
        this.sim = sim;
        this.index = index;
        this.time = sim.time;
        this.trace = sim.trace;
        this.config = config;
        this.providers = sim.providers;
        this.clock = new SimClock(time, w.gateway().replicaOffsetsMs()[index]);
        CalibrationStore calibrationStore;
        if (w.gateway().shared()) {
            // DispatchConfiguration.providerBudgetStore with Redis: this replica's slices of the shared budget, or the
            // shared budget.
            leases = w.gateway().slices()
                    ? new ReplicaLeases(
                            sim.sharedBudgets,
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(10),
                            Duration.ofMillis(50),
                            64,
                            clock,
                            time)
                    : null;
            budgets = leases != null ? leases : sim.sharedBudgets;
            // QuotaConfiguration with Redis: settlements batched, a local limiter for fail-open tiers.
            quota = new QuotaLimiter(
                    new BatchedSettlements(sim.sharedQuota, STORE_TIMEOUT, Duration.ofMillis(50), 64, clock, time),
                    new InMemoryQuotaStore(clock),
                    STORE_TIMEOUT,
                    meters,
                    StoreState.alwaysUp(),
                    null,
                    clock,
                    clock);
            calibrationStore = sim.sharedCalibration;
        } else {
            leases = null;
            budgets = new InMemoryProviderBudgetStore(clock);
            quota = new QuotaLimiter(sim.aloneQuota(clock), null, STORE_TIMEOUT, meters);
            calibrationStore = new OrderedCalibrationStore(
                    new dev.sluice.gateway.dispatch.calibration.memory.InMemoryCalibrationStore());
        }
        TokenCalibration.Settings cs = TokenCalibration.Settings.DEFAULTS; // sluice.calibration.* defaults
        calibration = new ProviderCalibration(
                calibrationStore, cs, Duration.ofSeconds(5), Duration.ofMinutes(10), STORE_TIMEOUT, clock, meters);
        dispatchers = new Dispatchers(budgets, config, settings, clock, time, meters, pending, calibration);
        dispatchers.createConfigured();
        LaneShare share = w.gateway().shared() && w.gateway().fairShare() ? sim.sharedLanes : null;
        if (share != null) dispatchers.shareLanes();
        sharing = new LaneSharing(
                dispatchers::all,
                share,
                () -> true,
                Duration.ofMillis(200),
                Duration.ofSeconds(1),
                DISPATCH_STORE_TIMEOUT,
                clock);
        sharing.start();
        ladder = new DegradationLadder(random);
        dispatch = new DispatchPath(this);
    }

    long now() {
        return time.now(TimeUnit.MILLISECONDS);
    }

    /** The request, from the quota stage to its answer, as the gateway's filters take it; its errors answered 500 as WebFlux does. */
    Mono<Void> handle(Exchange x) {
        return quotaStage(x).onErrorResume(e -> {
            x.attempt.escaped = e.toString();
            sim.escaped(x.attempt, e);
            return x.committed ? Mono.empty() : x.write(500, "500-escaped", -1, null);
        });
    }

    /** QuotaFilter.filter: the estimate charged in one step; what the ladder cannot change answered here. */
    private Mono<Void> quotaStage(Exchange x) {
        Attempt a = x.attempt;
        return quota.acquire(a.tenant, x.tier, a.estimate())
                .flatMap(outcome -> outright(x, outcome).orElseGet(() -> climb(x, outcome, true)));
    }

    /** QuotaRefusals.outright: the store could not be asked (503), or the request never fits (400). */
    private Optional<Mono<Void>> outright(Exchange x, QuotaLimiter.Outcome outcome) {
        trace.event(
                now(),
                "quota",
                x.attempt.id,
                outcome.admitted() ? 1 : 0,
                outcome.decision() == null ? -2 : outcome.decision().retryAfterMs());
        if (outcome.storeUnavailable()) return Optional.of(x.write(503, "quota-store-unavailable", 1_000, null));
        if (outcome.neverFits()) return Optional.of(x.write(400, "too-large-for-tier", -1, null));
        return Optional.empty();
    }

    /** LadderFilter.climb: pass, downgrade, hold on a timer and ask once more, or 429. */
    private Mono<Void> climb(Exchange x, QuotaLimiter.Outcome outcome, boolean mayDelay) {
        Attempt a = x.attempt;
        LadderSettings settings = config.current().ladder();
        boolean roomToHold = held.get() < settings.maxHeld();
        LadderDecision step =
                ladder.decide(outcome.decision(), x.tier, settings, x.model, a.noDowngrade, mayDelay && roomToHold);
        trace.event(now(), "ladder", a.id, step.stage().ordinal(), step.delayMs());
        switch (step.stage()) {
            case REJECTED -> {
                return x.write(429, "quota-429", outcome.decision().retryAfterMs(), null);
            }
            case DELAYED -> {
                held.incrementAndGet();
                return Mono.delay(Duration.ofMillis(step.delayMs()))
                        .then(quota.acquire(a.tenant, x.tier, a.estimate()))
                        .doFinally(signal -> held.decrementAndGet())
                        .flatMap(retry -> outright(x, retry).orElseGet(() -> climb(x, retry, false)));
            }
            case DOWNGRADED -> {
                x.model = step.model();
                return settleStage(x, outcome.reservation());
            }
            default -> {
                return settleStage(x, outcome.reservation());
            }
        }
    }

    /**
     * SettleFilter.filter: everything after the charge inside the settle's reach; a request never
     * sent refunded before its answer commits; the settle itself in doFinally, detached and once.
     */
    private Mono<Void> settleStage(Exchange x, QuotaReservation reservation) {
        Attempt a = x.attempt;
        a.admitted = true;
        a.reserved = reservation.estimatedTokens();
        AtomicBoolean recording = new AtomicBoolean();
        AtomicBoolean erredBeforeAnswer = new AtomicBoolean();
        return Mono.defer(() -> {
                    recording.set(true);
                    x.beforeCommit = () ->
                            x.neverSent ? once(a, reservation, 0, true).onErrorResume(e -> Mono.empty()) : Mono.empty();
                    return dispatch.filter(x);
                })
                .doOnError(e -> erredBeforeAnswer.set(!recording.get() || !x.committed))
                .doFinally(signal -> pending.run(
                        x.neverSent
                                ? once(a, reservation, 0, true).onErrorResume(e -> Mono.empty())
                                : settle(x, reservation, recording.get(), erredBeforeAnswer.get())));
    }

    /** SettleFilter.settle: once; our own failure refunded; otherwise what the request really cost. */
    private Mono<Void> settle(Exchange x, QuotaReservation reservation, boolean recording, boolean erredBeforeAnswer) {
        if (reservation.isSettled()) return Mono.empty();
        boolean failedOnOurSide = !recording || (erredBeforeAnswer && x.usage == null);
        if (failedOnOurSide) return once(x.attempt, reservation, 0, true).onErrorResume(e -> Mono.empty());
        return once(x.attempt, reservation, actualTokens(x), false).onErrorResume(e -> Mono.empty());
    }

    /** SettleFilter.actualTokens, for the counted endpoints (the simulation sends chat calls only). */
    static long actualTokens(Exchange x) {
        Attempt a = x.attempt;
        boolean ok = x.status() / 100 == 2;
        if (!ok) return x.usage != null ? x.usage.totalTokens() : a.promptTokens;
        if (x.usage != null) return x.usage.totalTokens();
        return Math.max(a.estimate(), a.promptTokens); // nothing passed to the client: observed output 0
    }

    /** The reservation's settle or refund, with what it charged written down for the invariants. */
    private Mono<Void> once(Attempt a, QuotaReservation reservation, long actual, boolean refund) {
        if (reservation.isSettled()) return Mono.empty();
        Mono<Void> call = refund ? reservation.refundAll() : reservation.settle(actual);
        a.settles++;
        a.charged = refund ? 0 : actual;
        a.chargedRequests = refund ? 0 : 1;
        trace.event(now(), refund ? "refund" : "settle", a.id, a.charged);
        return call;
    }

    /** One wait of a request in a dispatch line: the line (budget) it joined, once known, and whether it is the first placement. */
    static final class Wait {
        final Attempt attempt;
        final boolean first;
        String key;
        boolean over;

        Wait(Attempt attempt, boolean first) {
            this.attempt = attempt;
            this.first = first;
        }
    }

    /** The wait joined {@code key}'s line (the door let it in there). */
    void joined(Wait w, String key) {
        if (w.key != null || w.over) return;
        w.key = key;
        sim.inLine(w.attempt, key, +1);
        trace.event(now(), "in-line", w.attempt.id + " " + key, index);
    }

    /**
     * A wait in a dispatch line ({@code submit} or {@code resubmit}), watched: how many of each
     * tenant's jobs wait in each line (the fairness check's backlog), and for a first placement
     * what became of it (the door's promise).
     */
    Mono<Lease> waiting(Wait w, Mono<Lease> line) {
        Attempt a = w.attempt;
        boolean first = w.first;
        return line.doOnNext(lease -> {
                    if (first && a.leasedAtMs < 0) {
                        a.leasedAtMs = now();
                        a.placeOutcome = "lease";
                    }
                    a.lastLeaseKey = lease.budgetKey();
                    a.lastLeasedAtMs = now();
                    trace.event(now(), "lease", a.id, lease.job().tokens(), lease.queuedMs());
                    if (TRACE_LINES)
                        for (var d : dispatchers.all())
                            if (d.key().equals(lease.budgetKey()))
                                trace.event(
                                        now(),
                                        "line " + index + " " + d.key() + " " + SimulationSeams.lineState(d),
                                        a.id);
                })
                .doOnError(e -> {
                    if (!first) return;
                    a.placeOutcome = e instanceof GatewayBusyException b
                            ? "busy:" + BusyKind.of(b)
                            : e instanceof ProviderFailingException ? "spilled" : "error:" + e;
                })
                .doFinally(signal -> {
                    if (!w.over && w.key != null) {
                        sim.inLine(a, w.key, -1);
                        trace.event(now(), "out-line", a.id + " " + w.key, index);
                    }
                    w.over = true;
                    if (first && a.placeOutcome == null && signal == reactor.core.publisher.SignalType.CANCEL)
                        a.placeOutcome = "cancelled";
                });
    }

    /** A provider's 429 paused its budget: the door's estimates made before could not know. */
    void pushedBack(String provider, long pauseMs) {
        sim.disturbed(provider, now(), now() + pauseMs);
    }

    /** Calls this replica's dispatchers hold in flight (the in-flight gauge each registers). */
    int inFlight(String budgetKey) {
        Gauge g = meters.find("sluice.inflight").tag("budget", budgetKey).gauge();
        return g == null ? 0 : (int) g.value();
    }

    /** The provider as tiers.yaml would list it: its published limits ({@code told} times them for the checks' own test). */
    static ProviderSettings providerSettings(World.Provider p, double told) {
        return new ProviderSettings(
                p.name(),
                "http://" + p.name() + ".sim/v1",
                "",
                p.headroom(),
                Map.of(
                        ProviderSettings.ANY_MODEL,
                        new dev.sluice.gateway.config.ModelLimits(
                                Math.round(p.rpm() * told),
                                Math.round(p.tpm() * told),
                                (int) Math.round(p.maxInFlight() * told),
                                3.0)));
    }
}
