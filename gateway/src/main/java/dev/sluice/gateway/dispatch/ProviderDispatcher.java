package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.queue.BudgetView;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.FairQueue;
import dev.sluice.gateway.dispatch.queue.HoldBack;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.store.DecisionBudget;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Seed 000's dispatch loop for one provider budget (provider and model), on one replica:
 * jobs wait in a {@link FairQueue}; one serialized loop takes the job whose turn it is when
 * the shared budget has room for it, charges the budget (atomically, across replicas) and
 * lets its request go. The door in front refuses at once what would wait past the caller's
 * limit. Everything that touches the queue runs on {@code loop}, a single thread: the queue
 * needs no lock and the order of events is the order they were scheduled in.
 * <p>This class is the loop: the hand-over of each job onto it and the pump. The budget as last
 * seen and the bounded store calls are {@link BudgetCache}'s; how a lease ends (release,
 * corrections, the concurrency limit's samples) is {@link LeaseSettlement}'s; the refusals'
 * texts are {@link GatewayBusyException}'s.
 */
public final class ProviderDispatcher {
    private static final Logger log = LoggerFactory.getLogger(ProviderDispatcher.class);

    private final String key;
    private final BudgetCache budget;
    private final LeaseSettlement leases;
    private final Supplier<BudgetLimits> configured;
    private final AimdLimit aimd;
    private final FairQueue queue;
    private final Door door;
    private final Clock clock;
    private final Scheduler loop;
    private final Timer queueWait;
    private final DistributionSummary estimateError;
    private final PendingWork pending;
    private final ProviderHealth health;
    /** Set at shutdown: nothing more enters the line, and what waits in it is answered busy. */
    private volatile boolean closing;

    private final Map<String, Ticket> tickets = new HashMap<>();
    private boolean pumping;
    private boolean pumpAgain;
    /** A pump is scheduled and has not started: frees meanwhile need no other. */
    private final java.util.concurrent.atomic.AtomicBoolean pumpQueued = new java.util.concurrent.atomic.AtomicBoolean();
    /** The loop's thread (a single-thread scheduler), seen by the pump; an answer there goes on inline. */
    private volatile Thread loopThread;
    /** How deep answers on the loop go on inline before the next is scheduled (bounds the stack). */
    private static final int MAX_INLINE = 16;
    private int inline;
    private Disposable wakeUp;
    /** The line's length, written on the loop, read by the depth gauge. */
    private volatile int depth;
    /** Whether this budget's lanes wait for other replicas' ({@link LaneSharing}); on the loop. */
    private HoldBack hold = HoldBack.NONE;

    /**
     * A waiting request and the one place its lease (or its refusal) is delivered. Which budget's
     * line it waits in is chosen on the loop ({@link #enter}); {@code owner} says which, once placed.
     */
    private static final class Ticket {
        final Sinks.One<Lease> sink = Sinks.one();
        /** What the request may still wait on the store: the budget's calls made for this job are bounded by it. */
        final DecisionBudget budget;
        final AtomicReference<Lease> state = new AtomicReference<>(); // set once: the lease, or CANCELLED
        volatile ProviderDispatcher owner;
        volatile Job job; // as the owner charges it
        volatile long estimatedWaitMs = -1; // the door's, when it was asked

        Ticket(DecisionBudget budget) {
            this.budget = budget;
        }
    }

    /** A budget that can take a request, and the request's job as that budget charges it. */
    public record Candidate(ProviderDispatcher dispatcher, Job job) {
    }

    private static final Lease CANCELLED = new Lease("", "", null, 0, 0);

    public ProviderDispatcher(String key, ProviderBudgetStore store, Supplier<BudgetLimits> configured, AimdLimit aimd,
                              int capacity, double interactiveFloor, Duration storeTimeout, Clock clock, Scheduler loop,
                              MeterRegistry meters) {
        this(key, store, configured, aimd, capacity, interactiveFloor, storeTimeout, clock, loop, meters,
                PendingWork.untracked());
    }

    public ProviderDispatcher(String key, ProviderBudgetStore store, Supplier<BudgetLimits> configured, AimdLimit aimd,
                              int capacity, double interactiveFloor, Duration storeTimeout, Clock clock, Scheduler loop,
                              MeterRegistry meters, PendingWork pending) {
        this(key, store, configured, aimd, capacity, interactiveFloor, storeTimeout, clock, loop, meters, pending,
                new ProviderHealth(ProviderHealth.Settings.DEFAULTS));
    }

    /** @param health the provider's circuit, shared by its budgets (one per model) */
    public ProviderDispatcher(String key, ProviderBudgetStore store, Supplier<BudgetLimits> configured, AimdLimit aimd,
                              int capacity, double interactiveFloor, Duration storeTimeout, Clock clock, Scheduler loop,
                              MeterRegistry meters, PendingWork pending, ProviderHealth health) {
        this.health = health;
        this.pending = pending;
        this.key = key;
        this.configured = configured;
        this.aimd = aimd;
        // Credit sized by the limits at start; a reload that changes them keeps the first size (a tuning, not a bound).
        this.queue = FairQueue.forBudget(capacity, interactiveFloor, configured.get().tokenScale());
        this.door = new Door(queue);
        this.clock = clock;
        this.loop = loop;
        this.budget = new BudgetCache(key, store, storeTimeout, clock);
        this.leases = new LeaseSettlement(budget, aimd, clock, pending, this::pumpSoon,
                (tenant, delta) -> loop.schedule(() -> queue.reconcile(tenant, delta)));
        this.queueWait = DispatcherMeters.register(meters, key, this, aimd, leases.inFlight());
        this.estimateError = DispatcherMeters.estimateError(meters, key, this);
    }

    /** The budget as this replica last saw it, aged to now (see {@link BudgetCache#seenNow}). */
    BudgetSnapshot seenNow() {
        return budget.seenNow(limits());
    }

    int depth() {
        return depth;
    }

    /** The budget this dispatcher guards, {@code provider:model}. */
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

    /** The limits in force now: the configured ones with the adaptive concurrency limit. */
    BudgetLimits limits() {
        return configured.get().withMaxInFlight(aimd.limit());
    }

    /**
     * Asks the door, then waits in line. Emits the lease when the job may go; fails with
     * {@link GatewayBusyException} when the door says busy or the job's deadline passes in line.
     * Cancelling (the client left) takes the job out of line before it reaches the provider.
     */
    public Mono<Lease> submit(Job job, long maxWaitMs) {
        return enter(List.of(new Candidate(this, job)), maxWaitMs, 0, false, DecisionBudget.UNLIMITED);
    }

    /**
     * Back to the head of its lane after the provider pushed back, without asking the door again.
     * It was sent once: its store calls wait their own timeouts, not a budget it has no more use for.
     */
    public Mono<Lease> resubmit(Job job) {
        return enter(List.of(new Candidate(this, job)), Long.MAX_VALUE, 0, true, DecisionBudget.UNLIMITED);
    }

    /**
     * Into the line of one of {@code route}'s budgets, all on one loop: the first whose door
     * says the job can start within {@code spillMs}, else the one that can start it soonest.
     * Busy only when every budget's door refuses (the soonest retry is given). Fails with
     * {@link ProviderFailingException} when the chosen provider starts failing while the job
     * waits: the caller routes it again. The store calls made for it wait each their own timeout.
     */
    static Mono<Lease> enter(List<Candidate> route, long maxWaitMs, long spillMs, boolean atHead) {
        return enter(route, maxWaitMs, spillMs, atHead, DecisionBudget.UNLIMITED);
    }

    /**
     * {@link #enter(List, long, long, boolean)} for a request with {@code budget} left to wait on
     * the store: the budget's calls made for it (the head's snapshot, its acquire) wait no longer.
     */
    static Mono<Lease> enter(List<Candidate> route, long maxWaitMs, long spillMs, boolean atHead, DecisionBudget budget) {
        Ticket ticket = new Ticket(budget);
        Scheduler loop = route.get(0).dispatcher().loop;
        return Mono.defer(() -> {
                    loop.schedule(() -> place(ticket, route, maxWaitMs, spillMs, atHead));
                    return ticket.sink.asMono();
                })
                .doOnCancel(() -> {
                    Lease was = ticket.state.getAndUpdate(s -> s == null ? CANCELLED : s);
                    if (was == null) {
                        loop.schedule(() -> {
                            ProviderDispatcher owner = ticket.owner;
                            if (owner != null) owner.forget(ticket);
                        });
                    } else if (was != CANCELLED) {
                        ProviderDispatcher owner = ticket.owner; // set before any lease is handed over
                        owner.pending.run(owner.leases.release(was)); // dispatched as the client left: give the slot back
                    }
                });
    }

    /** On the loop: choose the budget (see {@link #enter}) and queue the job there, or refuse it. */
    private static void place(Ticket ticket, List<Candidate> route, long maxWaitMs, long spillMs, boolean atHead) {
        if (ticket.state.get() == CANCELLED) return;
        if (atHead) {
            Candidate only = route.get(0);
            only.dispatcher().queue(ticket, only.job(), true);
            return;
        }
        Candidate chosen = null;
        Job chosenJob = null;
        DoorDecision chosenDecision = null;
        DoorDecision best = null;
        DoorDecision refusal = null;
        boolean anyOpen = false;
        for (Candidate c : route) {
            ProviderDispatcher d = c.dispatcher();
            if (d.closing) continue;
            anyOpen = true;
            // The hop onto this loop is the gateway's time, not the caller's wait: the wait counts from here.
            long now = d.clock.millis();
            Job job = maxWaitMs < Long.MAX_VALUE - now ? c.job().withDeadlineAtLeast(now + maxWaitMs) : c.job();
            DoorDecision decision = d.door.admit(job, d.capacity(), maxWaitMs, now);
            if (decision.accepted() && decision.estimatedWaitMs() <= spillMs && d.health.probeDue(now)) {
                // A provider stepped around comes back only through a probe, and only a request sent
                // there probes it: one that can start it soon enough takes it, even behind an earlier one.
                chosen = c;
                chosenJob = job;
                chosenDecision = decision;
                break;
            }
            if (!decision.accepted()) {
                if (refusal == null || sooner(decision, refusal)) refusal = decision;
                continue;
            }
            if (best == null || decision.estimatedWaitMs() < best.estimatedWaitMs()) {
                best = decision;
                chosen = c;
                chosenJob = job;
                chosenDecision = decision;
            }
            if (decision.estimatedWaitMs() <= spillMs) {
                best = decision;
                chosen = c;
                chosenJob = job;
                chosenDecision = decision;
                break; // the first on the route that can start it soon enough
            }
        }
        if (!anyOpen) {
            fail(ticket, GatewayBusyException.shuttingDown());
            return;
        }
        // The ask is remembered by the door it went to, or by the route's first when all refused.
        // Only what went unmet is remembered: demand the door could not take counts ahead of whoever comes next.
        if (chosen == null) {
            route.get(0).dispatcher().door.asked(route.get(0).job(), route.get(0).dispatcher().clock.millis());
            fail(ticket, GatewayBusyException.refusedAtTheDoor(refusal, maxWaitMs));
        } else {
            ProviderDispatcher d = chosen.dispatcher();
            for (DoorDecision.Displaced displaced : chosenDecision.displaced()) d.giveWay(displaced);
            ticket.estimatedWaitMs = chosenDecision.estimatedWaitMs();
            d.queue(ticket, chosenJob, false, chosenDecision.turnAtLeast());
        }
    }

    /** The refusal to tell when all refuse: the soonest retry; "never fits" (-1) only when no other. */
    private static boolean sooner(DoorDecision a, DoorDecision b) {
        if (a.retryAfterMs() < 0) return false;
        return b.retryAfterMs() < 0 || a.retryAfterMs() < b.retryAfterMs();
    }

    private static void fail(Ticket ticket, RuntimeException why) {
        ticket.state.set(CANCELLED);
        ticket.sink.tryEmitError(why);
    }

    /** Queues an admitted job here (on the loop), making room in a full line if the door allowed it. */
    private void queue(Ticket ticket, Job job, boolean atHead) {
        queue(ticket, job, atHead, Long.MIN_VALUE);
    }

    private void queue(Ticket ticket, Job job, boolean atHead, long turnAtLeast) {
        if (closing) {
            fail(ticket, GatewayBusyException.shuttingDown());
            return;
        }
        if (atHead) {
            queue.requeueAtHead(job);
        } else {
            queue.victimFor(job).ifPresent(this::pushOut);
            if (!queue.enqueue(job, turnAtLeast)) {
                fail(ticket, GatewayBusyException.queueFull(queue.position(job.id()).orElse(queue.depth())));
                return;
            }
        }
        ticket.job = job;
        ticket.owner = this;
        tickets.put(job.id(), ticket);
        depth = queue.depth();
        pump();
    }

    /** The client left while its job waited here. On the loop. */
    private void forget(Ticket ticket) {
        String id = ticket.job.id();
        if (tickets.remove(id, ticket)) queue.remove(id);
        depth = queue.depth();
    }

    /** A job admitted within the burst gives its place to one owed an earlier turn: busy, at once. */
    private void giveWay(DoorDecision.Displaced displaced) {
        Job job = displaced.job();
        int position = queue.position(job.id()).orElse(0);
        if (queue.remove(job.id()).isEmpty()) return;
        Ticket t = tickets.remove(job.id());
        if (t != null && t.state.compareAndSet(null, CANCELLED)) {
            t.sink.tryEmitError(GatewayBusyException.gaveWay(position, displaced.waitMs(), job.deadlineMs() - job.enqueuedAtMs()));
        }
        depth = queue.depth();
    }

    /** A full queue's place goes to a tenant with less in line: the longest lane's last job leaves it, busy. */
    private void pushOut(Job victim) {
        int position = queue.position(victim.id()).orElse(0);
        queue.remove(victim.id());
        Ticket t = tickets.remove(victim.id());
        if (t != null && t.state.compareAndSet(null, CANCELLED)) t.sink.tryEmitError(GatewayBusyException.pushedOut(position));
    }

    /** The budget for the door: a failing provider's circuit counts as a pause. */
    private Door.Capacity capacity() {
        Door.Capacity c = budget.capacity(limits(), leases.meanCallMs(), leases.moveMs(), leases.inFlight().get());
        long blocked = health.blockedForMs(clock.millis());
        return blocked > c.pausedForMs() ? c.pausedFor(blocked) : c;
    }

    /** Pumps soon: the provider's circuit closed, its line may go. Any thread. */
    void wake() {
        pumpSoon();
    }

    /**
     * The provider started failing: every job waiting here leaves the line with
     * {@link ProviderFailingException}, so its caller routes it again (to another provider, or
     * back here to wait out the circuit). Calls in flight go on.
     */
    void spillWaiting() {
        loop.schedule(() -> {
            for (Job job : queue.inServiceOrder()) {
                queue.remove(job.id());
                Ticket t = tickets.remove(job.id());
                if (t != null && t.state.compareAndSet(null, CANCELLED)) t.sink.tryEmitError(new ProviderFailingException(provider()));
            }
            depth = queue.depth();
        });
    }

    /** A slot was freed (any thread): one pump on the loop, however many frees come before it runs. */
    private void pumpSoon() {
        if (pumpQueued.compareAndSet(false, true)) loop.schedule(this::pump);
    }

    /** Dispatch what fits, in turn, until the head does not fit; then wait for room. On {@code loop} only. */
    private void pump() {
        pumpQueued.set(false);
        loopThread = Thread.currentThread();
        if (pumping) {
            pumpAgain = true;
            return;
        }
        expireDeadlines();
        if (queue.depth() == 0) return;
        pumping = true;
        pumpAgain = false;
        BudgetLimits limits = limits();
        BudgetSnapshot recent = budget.recent(limits);
        if (recent != null) {
            // What the last store call said, aged: no round trip before the acquire that decides anyway.
            dispatchFrom(BudgetView.of(recent), limits, true);
        } else {
            fromStore(limits);
        }
    }

    /** The budget as the store has it now, then dispatch from it. */
    private void fromStore(BudgetLimits limits) {
        // Asked for the job at the head of the line, whose request waits on it.
        DecisionBudget head = queue.peek().map(j -> tickets.get(j.id())).map(t -> t.budget).orElse(DecisionBudget.UNLIMITED);
        budget.snapshot(limits, head).publishOn(loop).subscribe(
                snapshot -> {
                    budget.remember(snapshot);
                    dispatchFrom(BudgetView.of(snapshot), limits, false);
                },
                error -> stopPumping(250, error));
    }

    /**
     * @param remembered the view comes from this replica's last store call, not a fresh snapshot:
     *                   when it says the head must wait, the store is asked before waiting
     *                   (other replicas may have freed room since)
     */
    private void dispatchFrom(BudgetView view, BudgetLimits limits, boolean remembered) {
        long blocked = health.blockedForMs(clock.millis());
        if (blocked > 0) { // the provider is failing: nothing goes until a probe may
            stopPumping(Math.max(20, Math.min(blocked, 1_000)), null);
            return;
        }
        queue.holdAbove(hold.aboveAt(clock.millis()));
        Optional<Job> next = queue.next(view);
        depth = queue.depth();
        if (next.isEmpty()) {
            if (remembered && queue.depth() > 0) {
                fromStore(limits);
                return;
            }
            queue.peek().ifPresent(this::dropDoomed);
            BudgetSnapshot last = budget.last();
            long hint = last == null ? 100 : Math.max(20, Math.min(1_000, last.pausedForMs() > 0
                    ? last.pausedForMs() : limits.inFlightHintMs()));
            stopPumping(queue.depth() == 0 ? -1 : hint, null);
            return;
        }
        Job job = next.get();
        Ticket ticket = tickets.get(job.id());
        String leaseId = UUID.randomUUID().toString();
        // The leaving schedule serves the door's estimates for jobs that wait: not needed when none do.
        DecisionBudget waiting = ticket == null ? DecisionBudget.UNLIMITED : ticket.budget;
        budget.tryAcquire(limits, job, leaseId, queue.depth() > 0, waiting).subscribe(decision -> {
            // The budget as it is now, this dispatch included: the door counts it from here, not
            // from the pump's snapshot, which a burst of dispatches leaves behind. Remembered before
            // the lease is handed over: a call that fails at once gives its slot back after this,
            // not before it (its release would be overwritten, and the slot look taken for ever).
            budget.remember(decision.snapshot());
            // On the store's reply thread: an admitted job's caller goes on from here at once (the
            // hand-over is thread-safe); the queue's own bookkeeping follows on the loop.
            if (decision.admitted()) handOver(ticket, job, leaseId, decision);
            if (Thread.currentThread() == loopThread && inline < MAX_INLINE) {
                // Answered at once on the loop (spent from the replica's slice, or the in-memory
                // budget): go on here instead of a task hop per call, a few calls deep at most.
                inline++;
                try {
                    afterAcquire(job, decision, view, limits, remembered);
                } finally {
                    inline--;
                }
            } else {
                loop.schedule(() -> afterAcquire(job, decision, view, limits, remembered));
            }
        }, error -> loop.schedule(() -> {
            // No answer in time: the charge may still have landed. Releasing the lease id frees the
            // slot either way (Redis runs it after the acquire); the tokens stay counted, the safe side.
            pending.run(budget.release(leaseId).onErrorResume(e -> Mono.just(false)));
            queue.requeueAtHead(job);
            depth = queue.depth();
            stopPumping(250, error);
        }));
    }

    /** The lease to the waiting caller, or back to the budget if the caller has left. Any thread. */
    private void handOver(Ticket ticket, Job job, String leaseId, BudgetDecision decision) {
        long queued = Math.max(0, decision.nowMs() - job.enqueuedAtMs());
        boolean probe = health.startsAsProbe(decision.nowMs()); // past an open period, this call is the probe
        Lease lease = new Lease(key, leaseId, job, decision.chargedAtMs(), queued, decision.countsFromMs(), probe);
        leases.taken(lease);
        if (ticket == null || !ticket.state.compareAndSet(null, lease)) {
            pending.run(leases.release(lease)); // the client left while the lease was being taken
        } else {
            queueWait.record(queued, TimeUnit.MILLISECONDS);
            long estimated = ticket.estimatedWaitMs;
            if (estimated >= 0) {
                long floor = DispatcherMeters.ESTIMATE_FLOOR_MS;
                estimateError.record((double) Math.max(floor, queued) / Math.max(floor, estimated));
            }
            ticket.sink.tryEmitValue(lease);
        }
    }

    /** After an acquire, on the loop: remember the budget it returned, then the next job, or wait as told. */
    private void afterAcquire(Job job, BudgetDecision decision, BudgetView view, BudgetLimits limits, boolean remembered) {
        if (!decision.admitted()) {
            // Another replica took the room this view showed: back to the head, wait as told.
            queue.requeueAtHead(job);
            depth = queue.depth();
            stopPumping(Math.max(20, Math.min(decision.waitMs() < 0 ? 1_000 : decision.waitMs(), 5_000)), null);
            return;
        }
        tickets.remove(job.id());
        dispatchFrom(view.after(job), limits, remembered);
    }

    private void stopPumping(long wakeInMs, Throwable error) {
        pumping = false;
        if (error != null) log.warn("Budget {} did not answer: {}", key, error.toString());
        if (pumpAgain) {
            loop.schedule(this::pump);
        } else if (wakeInMs >= 0) {
            if (wakeUp != null) wakeUp.dispose();
            wakeUp = loop.schedule(this::pump, wakeInMs, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * How long past its deadline a job may still be sent. A pump already under way when the job
     * arrives is the gateway's time, not the caller's wait: without this (and the deadline
     * counted from the loop), {@code X-Sluice-Max-Wait: 0} on an idle provider, where the door
     * estimates no wait, expired in the first pump: a 503 for a request that could start at once.
     */
    static final long DISPATCH_GRACE_MS = 100;

    /** Dead work never reaches the provider: jobs past their deadline (and the grace) leave the line with busy. */
    private void expireDeadlines() {
        for (Job expired : queue.expire(clock.millis() - DISPATCH_GRACE_MS)) {
            Ticket t = tickets.remove(expired.id());
            if (t != null && t.state.compareAndSet(null, CANCELLED)) {
                t.sink.tryEmitError(GatewayBusyException.waitedTooLong(t.estimatedWaitMs));
            }
        }
        depth = queue.depth();
    }

    /**
     * Dead work, told early. Nothing in line goes before the job at its head, so when even the
     * head must wait for the window to free (after a burst spent the minute, about a minute),
     * every job whose deadline comes sooner cannot make it: it leaves the line now, busy, with
     * its place and that wait, instead of holding its caller until the deadline. The door
     * accepted these on its estimate; later arrivals owed their fair share went ahead of them.
     */
    private void dropDoomed(Job head) {
        long wait = Door.earliestSendMs(head, capacity(), queue.interactiveFloor());
        if (wait <= 0) return;
        long now = clock.millis();
        long horizon = now + wait;
        if (!queue.anyDeadlineBy(horizon)) return;
        List<Job> order = queue.inServiceOrder();
        for (int i = 0; i < order.size(); i++) {
            Job job = order.get(i);
            if (job.deadlineMs() > horizon) continue;
            queue.remove(job.id());
            Ticket t = tickets.remove(job.id());
            if (t != null && t.state.compareAndSet(null, CANCELLED)) {
                t.sink.tryEmitError(GatewayBusyException.cannotMakeIt(job.deadlineMs() - job.enqueuedAtMs(), wait, i + 1,
                        t.estimatedWaitMs));
            }
        }
        depth = queue.depth();
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
            for (Job job : queue.inServiceOrder()) {
                queue.remove(job.id());
                Ticket t = tickets.remove(job.id());
                if (t != null && t.state.compareAndSet(null, CANCELLED)) t.sink.tryEmitError(GatewayBusyException.shuttingDown());
            }
            depth = queue.depth();
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
    long credit() {
        return queue.credit();
    }

    /** What this budget tells the other replicas at a tick: its lanes' service and its door's demand. */
    record Share(List<LaneShare.Report> lanes, List<LaneShare.Demand> demand) {
    }

    /** This budget's lanes and demand to report to the other replicas (taken on the loop). */
    Mono<Share> takeReports() {
        return Mono.fromCallable(() -> {
            queue.shareWithOtherReplicas();
            return new Share(queue.takeReports(), door.demandHere(clock.millis()));
        }).subscribeOn(loop);
    }

    /** The fleet's view: counters rebased, the others' demand to the door, the hold set, and the line tried again under it. */
    void shared(LaneShare.View view, HoldBack hold) {
        loop.schedule(() -> {
            queue.rebase(view.counters());
            door.elsewhere(view.elsewhere());
            boolean wasHolding = this.hold.aboveAt(clock.millis()) != Long.MAX_VALUE;
            this.hold = hold;
            if (wasHolding) pump(); // a lane held back may go now; otherwise the pump's own wake-ups suffice
        });
    }

    /** The report did not reach the fleet: its service goes in the next one, and nothing is held back meanwhile. */
    void notShared(List<LaneShare.Report> reports) {
        loop.schedule(() -> {
            queue.restore(reports);
            door.elsewhere(Map.of());
            boolean wasHolding = this.hold.aboveAt(clock.millis()) != Long.MAX_VALUE;
            this.hold = HoldBack.NONE;
            if (wasHolding) pump();
        });
    }

    // How a lease ends: LeaseSettlement.

    public Mono<Void> finish(Lease lease, AimdLimit.Outcome outcome, long tokenDelta, long durationMs, long countedByMs) {
        return leases.finish(lease, outcome, tokenDelta, 0, 0, durationMs, countedByMs);
    }

    /** The call ended with the provider's usage: the input and output windows are settled too. */
    public Mono<Void> finish(Lease lease, AimdLimit.Outcome outcome, long tokenDelta, long inputDelta, long outputDelta,
                             long durationMs, long countedByMs) {
        return leases.finish(lease, outcome, tokenDelta, inputDelta, outputDelta, durationMs, countedByMs);
    }

    public Mono<Void> pushedBack(Lease lease, long retryAfterMs) {
        return leases.pushedBack(lease, retryAfterMs);
    }

    public Mono<Void> overloaded(Lease lease) {
        return leases.overloaded(lease);
    }

    /** The connection was never made: the attempt is refunded whole (see {@link LeaseSettlement#notSent}). */
    public Mono<Void> notSent(Lease lease) {
        return leases.notSent(lease);
    }

    public Mono<Void> correct(long remainingRequests, long remainingTokens, long resetMs) {
        return leases.correct(limits(), remainingRequests, remainingTokens, resetMs);
    }
}
