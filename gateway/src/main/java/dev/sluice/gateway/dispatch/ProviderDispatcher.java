package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.Amounts;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderFailingException;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.lease.BudgetCache;
import dev.sluice.gateway.dispatch.lease.FinishedCall;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.lease.LeaseSettlement;
import dev.sluice.gateway.dispatch.queue.Confirmations;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.FairQueue;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.HoldBack;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.store.DecisionBudget;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * One provider budget (provider and model) on one replica, so that no replica sends the provider
 * more than it accepts: jobs wait in a {@link FairQueue}; one serialized loop takes the job whose
 * turn it is when the shared budget has room for it, charges the budget (atomically, across
 * replicas) and lets its request go. The door in front refuses at once what would wait past the
 * caller's limit. Everything that touches the queue runs on {@code loop}, a single thread: the
 * queue needs no lock and the order of events is the order they were scheduled in.
 * <p>This class holds the budget's parts and its entry points. Which budget of a route a job
 * waits in is {@link RouteChoice}'s; who waits and how a wait ends is {@link Line}'s; the loop that
 * sends them is {@link Pump}'s; the budget as last seen and the bounded store calls are
 * {@link BudgetCache}'s; how a lease ends (release, corrections, the concurrency limit's samples)
 * is {@link LeaseSettlement}'s; the refusals' texts are {@link GatewayBusyException}'s.
 */
public final class ProviderDispatcher implements LaneSharing.Lanes {
    private final String key;
    private final BudgetCache budget;
    private final LeaseSettlement leases;
    private final Supplier<BudgetLimits> configured;
    private final AimdLimit aimd;
    private final Line line;
    private final FairQueue queue;
    private final Door door;
    private final Confirmations confirmations = new Confirmations();
    private final Clock clock;
    private final Scheduler loop;
    private final Timer queueWait;
    private final DistributionSummary estimateError;
    private final PendingWork pending;
    private final ProviderHealth health;
    /** Set at shutdown: nothing more enters the line, and what waits in it is answered busy. */
    private volatile boolean closing;

    private final Pump pump;

    /** A budget that can take a request, and the request's job as that budget charges it. */
    public record Candidate(ProviderDispatcher dispatcher, Job job) {}

    public ProviderDispatcher(DispatcherSettings settings) {
        this.key = settings.key();
        this.configured = settings.limits();
        this.aimd = settings.aimd();
        this.health = settings.health();
        this.pending = settings.pending();
        this.clock = settings.clock();
        this.loop = settings.loop();
        // Credit sized by the limits at start; a reload that changes them keeps the first size (a tuning, not a bound).
        this.queue = FairQueue.forBudget(
                settings.queueCapacity(),
                settings.interactiveFloor(),
                configured.get().tokenScale());
        this.line = new Line(queue);
        this.door = new Door(queue);
        this.budget = new BudgetCache(key, settings.store(), settings.storeTimeout(), clock);
        this.pump = new Pump(this, line, budget, health, clock, loop, pending);
        this.leases = new LeaseSettlement(
                budget,
                aimd,
                clock,
                pending,
                pump::pumpSoon,
                (tenant, delta) -> loop.schedule(() -> queue.reconcile(tenant, delta)));
        this.queueWait = DispatcherMeters.register(settings.meters(), key, this, aimd, leases.inFlight());
        this.estimateError = DispatcherMeters.estimateError(settings.meters(), key, this);
    }

    /** The budget as this replica last saw it, aged to now (see {@link BudgetCache#seenNow}). */
    BudgetSnapshot seenNow() {
        return budget.seenNow(limits());
    }

    int depth() {
        return line.depth();
    }

    /** The budget this dispatcher guards, {@code provider:model}. */
    @Override
    public String key() {
        return key;
    }

    /** The provider's name (provider names hold no ':'). */
    public String provider() {
        return key.substring(0, key.indexOf(':'));
    }

    /** The model, or "*" for the provider's catch-all budget. */
    public String model() {
        return key.substring(key.indexOf(':') + 1);
    }

    public ProviderHealth health() {
        return health;
    }

    /**
     * Calls of {@code tokens} this budget starts a minute when kept busy ({@link Door#callsPerMinute}),
     * from its limits now and its calls' mean time: rates only, so no snapshot is aged and no
     * window's schedule copied, as {@link #capacity()} does for the door.
     */
    double callsPerMinute(long tokens) {
        BudgetLimits l = limits();
        return Door.callsPerMinute(
                l.tokensPerMinute(), l.requestsPerMinute(), l.maxInFlight(), leases.meanCallMs(), tokens);
    }

    /** The limits in force now: the configured ones with the adaptive concurrency limit. */
    @Override
    public BudgetLimits limits() {
        return configured.get().withMaxInFlight(aimd.limit());
    }

    /**
     * Asks the door, then waits in line. Emits the lease when the job may go; fails with
     * {@link GatewayBusyException} when the door says busy or the job's deadline passes in line.
     * Cancelling (the client left) takes the job out of line before it reaches the provider.
     */
    public Mono<Lease> submit(Job job, long maxWaitMs) {
        return RouteChoice.enter(List.of(new Candidate(this, job)), maxWaitMs, 0, false, DecisionBudget.UNLIMITED);
    }

    /**
     * Back to the head of its lane after the provider pushed back, without asking the door again.
     * It was sent once: its store calls wait their own timeouts, not a budget it has no more use for.
     */
    public Mono<Lease> resubmit(Job job) {
        return RouteChoice.enter(List.of(new Candidate(this, job)), Long.MAX_VALUE, 0, true, DecisionBudget.UNLIMITED);
    }

    /** The client left while its job waited here. On the loop. */
    void forget(Line.Ticket ticket) {
        line.forget(ticket);
    }

    /** The lease was handed over as the client left: the slot goes back. Any thread. */
    void giveBack(Lease lease) {
        pending.run(leases.release(lease));
    }

    /** A job admitted within the burst gives its place to one owed an earlier turn: demand not met, as a refusal is. On the loop. */
    void giveWay(DoorDecision.Displaced displaced) {
        door.asked(displaced.job(), clock.millis());
        line.giveWay(displaced);
    }

    /** Demand this door could not take: it counts ahead of whoever comes next. On the loop. */
    void asked(Job job) {
        door.asked(job, clock.millis());
    }

    /**
     * Refused at every door of its route, this one not the first (which counts the demand): its
     * tenant is expected back here too ({@link FairQueue#refused}). On the loop.
     */
    void awaits(Job job) {
        queue.refused(job.tenant(), clock.millis());
    }

    Scheduler loop() {
        return loop;
    }

    /** Whether this budget takes no more jobs (shutting down). */
    boolean closing() {
        return closing;
    }

    long now() {
        return clock.millis();
    }

    /**
     * The promises not yet confirmed, decided again on the views that have come since they were
     * made ({@link Confirmations}): the store's, sent at {@code storeSentAtMs} (MIN_VALUE: none),
     * and the fleet's as the last share showed it. On the loop.
     */
    List<DoorDecision.Displaced> reviewPromises(long storeSentAtMs) {
        long now = clock.millis();
        List<DoorDecision.Displaced> out = confirmations.review(door, capacity(), now, storeSentAtMs);
        for (DoorDecision.Displaced d : out)
            door.asked(d.job(), now); // demand not met: it counts ahead as a refusal does
        return out;
    }

    /** Completes once this replica has read the budget from the store ({@link BudgetCache#seenOnce}). Any thread. */
    Mono<Void> seenOnce(DecisionBudget waiter) {
        return budget.seenOnce(limits(), waiter, loop);
    }

    /** Whether this replica has read the budget from the store at least once. */
    boolean seen() {
        return budget.last() != null;
    }

    /** The door's word on {@code job}, with the budget as it stands now. On the loop. */
    DoorDecision ask(Job job, long maxWaitMs, long nowMs) {
        return door.admit(job, capacity(), maxWaitMs, nowMs);
    }

    /** Queues an admitted job here (on the loop), making room in a full line if the door allowed it. */
    void queue(Line.Ticket ticket, Job job, boolean atHead, long turnAtLeast) {
        if (closing) {
            Line.fail(ticket, GatewayBusyException.shuttingDown());
            return;
        }
        if (line.add(ticket, job, atHead, turnAtLeast, this)) pump.pump();
    }

    /**
     * The budget for the door, with when its calls in flight end (this replica's as it holds them, the
     * others' as the window dates them): a failing provider's circuit counts as a pause.
     */
    Door.Capacity capacity() {
        return paused(budget.capacity(limits(), leases.meanCallMs(), leases.moveMs(), leases.ending()));
    }

    /** The same without when the calls end, for what reads only the windows and the pause ({@link Door#earliestSendMs}). */
    Door.Capacity windows() {
        return paused(budget.capacity(
                limits(),
                leases.meanCallMs(),
                leases.moveMs(),
                leases.inFlight().get()));
    }

    private Door.Capacity paused(Door.Capacity c) {
        long blocked = health.blockedForMs(clock.millis());
        return blocked > c.pausedForMs() ? c.pausedFor(blocked) : c;
    }

    /** Pumps soon: the provider's circuit closed, its line may go. Any thread. */
    void wake() {
        pump.pumpSoon();
    }

    /**
     * The provider started failing: every job waiting here leaves the line with
     * {@link ProviderFailingException}, so its caller routes it again (to another provider, or
     * back here to wait out the circuit). Calls in flight go on.
     */
    void spillWaiting() {
        loop.schedule(() -> line.refuseAll(() -> new ProviderFailingException(provider())));
    }

    /** The lease to the waiting caller, or back to the budget if the caller has left. Any thread. */
    void handOver(Line.Ticket ticket, Job job, String leaseId, BudgetDecision decision) {
        long queued = Math.max(0, decision.nowMs() - job.enqueuedAtMs());
        boolean probe = health.startsAsProbe(decision.nowMs()); // past an open period, this call is the probe
        Lease lease = new Lease(key, leaseId, job, decision.chargedAtMs(), queued, decision.countsFromMs(), probe);
        leases.taken(lease);
        if (ticket == null || !ticket.state.compareAndSet(null, lease)) {
            pending.run(leases.release(lease)); // the client left while the lease was being taken
        } else {
            DispatcherMeters.waited(queueWait, estimateError, queued, ticket.estimatedWaitMs);
            ticket.sink.tryEmitValue(lease);
        }
    }

    /**
     * Shutdown: from now on every job, waiting or arriving, is answered busy (its caller refunds
     * its quota and tells the tenant to retry, on another replica). Calls in flight go on. Returns
     * once the line is empty.
     */
    public Mono<Void> close() {
        closing = true;
        Sinks.Empty<Void> closed = Sinks.empty();
        loop.schedule(() -> {
            line.refuseAll(GatewayBusyException::shuttingDown);
            closed.tryEmitEmpty();
        });
        return closed.asMono();
    }

    /**
     * Takes jobs again after {@link #close()}: a context that is stopped and started again (the
     * test framework pauses cached contexts this way) must serve, not answer busy for ever.
     */
    public void open() {
        closing = false;
    }

    // Fairness across replicas: LaneSharing takes the reports and hands back the fleet's view, on the loop.

    /** The queue's credit, for the shared counters' lift. */
    @Override
    public long credit() {
        return queue.credit();
    }

    /** Lanes are shared with other replicas: a promise waits for the fleet's view as well as the store's. */
    void sharesLanes() {
        loop.schedule(confirmations::sharing);
    }

    /** This budget's lanes and demand to report to the other replicas (taken on the loop). */
    @Override
    public Mono<LaneSharing.Share> takeReports() {
        return Mono.fromCallable(() -> {
                    queue.shareWithOtherReplicas();
                    confirmations.sharing();
                    return new LaneSharing.Share(queue.takeReports(), door.demandHere(clock.millis()));
                })
                .subscribeOn(loop);
    }

    /** The fleet's view: counters rebased, the others' demand to the door, the hold set, and the line tried again under it. */
    @Override
    public void shared(LaneShare.View view, HoldBack hold, long othersSeenUpToMs) {
        loop.schedule(() -> {
            queue.rebase(view.counters());
            door.elsewhere(view.elsewhere(), hold.slack());
            budget.queuedElsewhere(LaneShare.queued(view.elsewhere().values()));
            confirmations.fleetSeen(othersSeenUpToMs, clock.millis());
            pump.reviewPromises(Long.MIN_VALUE); // the others' lines of the same moment may take what was promised
            pump.holdBack(hold.withOthersDueAt(
                    LaneShare.dueAt(view.elsewhere().values(), hold.dueReach(queue.lowestWaiting()), clock.millis())));
        });
    }

    /** The report did not reach the fleet: its service goes in the next one, and nothing is held back meanwhile. */
    @Override
    public void notShared(List<LaneShare.Report> reports) {
        loop.schedule(() -> {
            confirmations.notShared();
            queue.restore(reports);
            door.elsewhere(Map.of());
            budget.queuedElsewhere(Amounts.ZERO);
            pump.holdBack(HoldBack.NONE);
        });
    }

    // How a lease ends: LeaseSettlement.

    public Mono<Void> finish(Lease lease, AimdLimit.Outcome outcome, long tokenDelta, long countedByMs) {
        return finish(lease, new FinishedCall(outcome, tokenDelta, 0, 0), countedByMs);
    }

    /** The call ended as {@code call} says: with the provider's usage, the input and output windows are settled too. */
    public Mono<Void> finish(Lease lease, FinishedCall call, long countedByMs) {
        return leases.finish(lease, call, countedByMs);
    }

    public Mono<Void> pushedBack(Lease lease, long retryAfterMs) {
        return leases.pushedBack(lease, retryAfterMs);
    }

    public Mono<Void> overloaded(Lease lease) {
        return leases.overloaded(lease);
    }

    /** The lease's request went out to the provider (see {@link LeaseSettlement#sent}). */
    public void sent(Lease lease) {
        leases.sent(lease);
    }

    /** The connection was never made: the attempt is refunded whole (see {@link LeaseSettlement#notSent}). */
    public Mono<Void> notSent(Lease lease) {
        return leases.notSent(lease);
    }

    public Mono<Void> correct(long remainingRequests, long remainingTokens, long resetMs) {
        return leases.correct(limits(), remainingRequests, remainingTokens, resetMs);
    }
}
