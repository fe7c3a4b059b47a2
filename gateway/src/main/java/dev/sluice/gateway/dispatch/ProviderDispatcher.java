package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
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
import java.util.concurrent.atomic.AtomicInteger;
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
 */
public final class ProviderDispatcher {
    private static final Logger log = LoggerFactory.getLogger(ProviderDispatcher.class);

    private final String key;
    private final ProviderBudgetStore store;
    private final Supplier<BudgetLimits> configured;
    private final AimdLimit aimd;
    private final FairQueue queue;
    private final Door door;
    private final Clock clock;
    private final Scheduler loop;
    private final Duration storeTimeout;
    private final Timer queueWait;
    private final PendingWork pending;
    /** Set at shutdown: nothing more enters the line, and what waits in it is answered busy. */
    private volatile boolean closing;

    private final Map<String, Ticket> tickets = new HashMap<>();
    // Written on the loop, read by metrics scrapes too.
    private volatile BudgetSnapshot lastSnapshot;
    private volatile long lastSnapshotAtMs; // on this replica's clock, which may differ from the store's
    private boolean pumping;
    private boolean pumpAgain;
    private Disposable wakeUp;
    private volatile long meanCallMs = 2_000; // seed 000's call; EWMA of what calls really take
    private final AtomicInteger inFlightHere = new AtomicInteger();
    /** Leases this replica holds; removing one is what makes a release happen once. */
    private final java.util.Set<String> live = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A waiting job and the one place its lease (or its refusal) is delivered. */
    private static final class Ticket {
        final Job job;
        final Sinks.One<Lease> sink = Sinks.one();
        final AtomicReference<Lease> state = new AtomicReference<>(); // set once: the lease, or CANCELLED
        Ticket(Job job) {
            this.job = job;
        }
    }

    private static final Lease CANCELLED = new Lease("", "", null, 0, 0);
    /**
     * How old the budget from this replica's last store call may be and still choose the next
     * job without asking the store first. Every acquire returns the budget, so under steady
     * traffic it is one call old; the acquire decides for real, and a view that shows no room
     * is checked with the store before anyone waits on it.
     */
    static final long REMEMBERED_VIEW_MS = 1_000;

    public ProviderDispatcher(String key, ProviderBudgetStore store, Supplier<BudgetLimits> configured, AimdLimit aimd,
                              int capacity, double interactiveFloor, Duration storeTimeout, Clock clock, Scheduler loop,
                              MeterRegistry meters) {
        this(key, store, configured, aimd, capacity, interactiveFloor, storeTimeout, clock, loop, meters,
                PendingWork.untracked());
    }

    public ProviderDispatcher(String key, ProviderBudgetStore store, Supplier<BudgetLimits> configured, AimdLimit aimd,
                              int capacity, double interactiveFloor, Duration storeTimeout, Clock clock, Scheduler loop,
                              MeterRegistry meters, PendingWork pending) {
        this.pending = pending;
        this.key = key;
        this.store = store;
        this.configured = configured;
        this.aimd = aimd;
        this.queue = new FairQueue(capacity, interactiveFloor);
        this.door = new Door(queue);
        this.clock = clock;
        this.loop = loop;
        this.storeTimeout = storeTimeout;
        this.queueWait = Timer.builder("sluice.queue.wait").tag("budget", key).publishPercentileHistogram()
                .description("Time requests wait in the dispatch queue").register(meters);
        meters.gauge("sluice.queue.depth", List.of(io.micrometer.core.instrument.Tag.of("budget", key)), this, d -> d.depth);
        meters.gauge("sluice.concurrency.limit", List.of(io.micrometer.core.instrument.Tag.of("budget", key)), aimd, AimdLimit::limit);
        meters.gauge("sluice.inflight", List.of(io.micrometer.core.instrument.Tag.of("budget", key)), inFlightHere);
        meters.gauge("sluice.budget.utilisation", List.of(io.micrometer.core.instrument.Tag.of("budget", key),
                io.micrometer.core.instrument.Tag.of("unit", "tokens")), this, d -> d.seenNow().tokenUtilisation());
        meters.gauge("sluice.budget.utilisation", List.of(io.micrometer.core.instrument.Tag.of("budget", key),
                io.micrometer.core.instrument.Tag.of("unit", "requests")), this, d -> d.seenNow().requestUtilisation());
    }

    private volatile int depth;

    /**
     * The budget as this replica last saw it, aged to now: what has left the window since no
     * longer counts, so an idle replica's gauge falls to zero instead of repeating its last
     * busy minute. Charges made meanwhile by other replicas are not seen until the next look.
     */
    BudgetSnapshot seenNow() {
        BudgetSnapshot s = lastSnapshot;
        if (s == null) return new BudgetSnapshot(limits(), clock.millis(), 0, 0, 0, 0, 0, List.of());
        return s.agedBy(clock.millis() - lastSnapshotAtMs);
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
        return enter(job, maxWaitMs, false);
    }

    /** Back to the head of its lane after the provider pushed back, without asking the door again. */
    public Mono<Lease> resubmit(Job job) {
        return enter(job, Long.MAX_VALUE, true);
    }

    private Mono<Lease> enter(Job job, long maxWaitMs, boolean atHead) {
        Ticket ticket = new Ticket(job);
        return Mono.defer(() -> {
                    loop.schedule(() -> admit(ticket, maxWaitMs, atHead));
                    return ticket.sink.asMono();
                })
                .doOnCancel(() -> {
                    Lease was = ticket.state.getAndUpdate(s -> s == null ? CANCELLED : s);
                    if (was == null) {
                        loop.schedule(() -> {
                            queue.remove(job.id());
                            tickets.remove(job.id());
                            depth = queue.depth();
                        });
                    } else if (was != CANCELLED) {
                        pending.run(release(was)); // dispatched as the client left: give the slot back
                    }
                });
    }

    private void admit(Ticket ticket, long maxWaitMs, boolean atHead) {
        Job job = ticket.job;
        if (ticket.state.get() == CANCELLED) return;
        if (closing) {
            ticket.state.set(CANCELLED);
            ticket.sink.tryEmitError(shuttingDown());
            return;
        }
        if (!atHead) {
            // The hop onto this loop is the gateway's time, not the caller's wait: the wait counts from here.
            long now = clock.millis();
            if (maxWaitMs < Long.MAX_VALUE - now) job = job.withDeadlineAtLeast(now + maxWaitMs);
            DoorDecision d = door.admit(job, capacity(), maxWaitMs);
            if (!d.accepted()) {
                ticket.state.set(CANCELLED);
                String why = switch (d.verdict()) {
                    case QUEUE_FULL -> "The gateway's queue is full.";
                    case TOO_LARGE -> "This request is larger than the provider admits in a minute.";
                    default -> "The provider is busy: the estimated wait (" + d.estimatedWaitMs() + " ms) is longer than "
                            + maxWaitMs + " ms.";
                };
                ticket.sink.tryEmitError(new GatewayBusyException(why, d.position(), d.estimatedWaitMs(), d.retryAfterMs()));
                return;
            }
            if (!queue.enqueue(job)) {
                ticket.state.set(CANCELLED);
                ticket.sink.tryEmitError(new GatewayBusyException("The gateway's queue is full.", queue.depth(), -1, 1_000));
                return;
            }
        } else {
            queue.requeueAtHead(job);
        }
        tickets.put(job.id(), ticket);
        depth = queue.depth();
        pump();
    }

    private Door.Capacity capacity() {
        BudgetLimits l = limits();
        BudgetSnapshot s = lastSnapshot;
        if (s == null) {
            return new Door.Capacity(l.tokensPerMinute(), l.requestsPerMinute(), l.maxInFlight(), meanCallMs, 0, 0, 0, 0,
                    List.of());
        }
        // The last snapshot may be old (nothing waited, so nothing pumped): what left the window since is gone.
        return Door.Capacity.of(s.withLimits(l).agedBy(clock.millis() - lastSnapshotAtMs), meanCallMs);
    }

    /** Dispatch what fits, in turn, until the head does not fit; then wait for room. On {@code loop} only. */
    private void pump() {
        if (pumping) {
            pumpAgain = true;
            return;
        }
        expireDeadlines();
        if (queue.depth() == 0) return;
        pumping = true;
        pumpAgain = false;
        BudgetLimits limits = limits();
        BudgetSnapshot known = lastSnapshot;
        long age = clock.millis() - lastSnapshotAtMs;
        if (known != null && age >= 0 && age < REMEMBERED_VIEW_MS) {
            // What the last store call said, aged: no round trip before the acquire that decides anyway.
            dispatchFrom(BudgetView.of(known.withLimits(limits).agedBy(age)), limits, true);
        } else {
            fromStore(limits);
        }
    }

    /** The budget as the store has it now, then dispatch from it. */
    private void fromStore(BudgetLimits limits) {
        answered(store.snapshot(key, limits)).publishOn(loop).subscribe(
                snapshot -> {
                    lastSnapshot = snapshot;
                    lastSnapshotAtMs = clock.millis();
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
        Optional<Job> next = queue.next(view);
        depth = queue.depth();
        if (next.isEmpty()) {
            if (remembered && queue.depth() > 0) {
                fromStore(limits);
                return;
            }
            queue.peek().ifPresent(this::dropDoomed);
            long hint = lastSnapshot == null ? 100 : Math.max(20, Math.min(1_000, lastSnapshot.pausedForMs() > 0
                    ? lastSnapshot.pausedForMs() : limits.inFlightHintMs()));
            stopPumping(queue.depth() == 0 ? -1 : hint, null);
            return;
        }
        Job job = next.get();
        Ticket ticket = tickets.get(job.id());
        String leaseId = UUID.randomUUID().toString();
        // The leaving schedule serves the door's estimates for jobs that wait: not needed when none do.
        answered(store.tryAcquire(key, limits, job.tokens(), leaseId, queue.depth() > 0)).subscribe(decision -> {
            // On the store's reply thread: an admitted job's caller goes on from here at once (the
            // hand-over is thread-safe); the queue's own bookkeeping follows on the loop.
            if (decision.admitted()) handOver(ticket, job, leaseId, decision);
            loop.schedule(() -> afterAcquire(job, decision, view, limits, remembered));
        }, error -> loop.schedule(() -> {
            // No answer in time: the charge may still have landed. Releasing the lease id frees the
            // slot either way (Redis runs it after the acquire); the tokens stay counted, the safe side.
            pending.run(bounded(store.release(key, leaseId)).onErrorResume(e -> Mono.just(false)));
            queue.requeueAtHead(job);
            depth = queue.depth();
            stopPumping(250, error);
        }));
    }

    /** The lease to the waiting caller, or back to the budget if the caller has left. Any thread. */
    private void handOver(Ticket ticket, Job job, String leaseId, BudgetDecision decision) {
        long queued = Math.max(0, decision.nowMs() - job.enqueuedAtMs());
        Lease lease = new Lease(key, leaseId, job, decision.nowMs(), queued);
        inFlightHere.incrementAndGet();
        live.add(leaseId);
        if (ticket == null || !ticket.state.compareAndSet(null, lease)) {
            pending.run(release(lease)); // the client left while the lease was being taken
        } else {
            queueWait.record(queued, TimeUnit.MILLISECONDS);
            ticket.sink.tryEmitValue(lease);
        }
    }

    /** After an acquire, on the loop: remember the budget it returned, then the next job, or wait as told. */
    private void afterAcquire(Job job, BudgetDecision decision, BudgetView view, BudgetLimits limits, boolean remembered) {
        // The budget as it is now, this dispatch included: the door counts it from here, not
        // from the pump's snapshot, which a burst of dispatches leaves behind.
        lastSnapshot = decision.snapshot();
        lastSnapshotAtMs = clock.millis();
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
                t.sink.tryEmitError(new GatewayBusyException("The request waited its whole X-Sluice-Max-Wait in line.",
                        0, -1, 1_000));
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
                long maxWait = job.deadlineMs() - job.enqueuedAtMs();
                long retry = Math.max(1, wait - maxWait); // as the door says: when asking again would get in
                t.sink.tryEmitError(new GatewayBusyException("The provider is busy: this request cannot be sent within its "
                        + "X-Sluice-Max-Wait (" + maxWait + " ms); the budget has room again in " + wait + " ms.",
                        i + 1, wait, retry));
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
                if (t != null && t.state.compareAndSet(null, CANCELLED)) t.sink.tryEmitError(shuttingDown());
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

    private static GatewayBusyException shuttingDown() {
        return new GatewayBusyException("This gateway replica is shutting down; retry the request.", 0, -1, 1_000);
    }

    /** The call ended: give back the slot, correct the tokens, teach the concurrency limit, let the next one go. */
    public Mono<Void> finish(Lease lease, AimdLimit.Outcome outcome, long tokenDelta, long durationMs) {
        if (outcome == AimdLimit.Outcome.SUCCESS && durationMs > 0) meanCallMs = (meanCallMs * 7 + durationMs) / 8;
        aimd.onSample(clock.millis(), outcome, inFlightHere.get());
        Mono<Void> adjust = tokenDelta == 0 ? Mono.empty() : bounded(store.adjustTokens(key, lease.chargedAtMs(), tokenDelta));
        if (tokenDelta != 0) loop.schedule(() -> queue.reconcile(lease.job().tenant(), tokenDelta));
        return detached(adjust.onErrorResume(e -> Mono.empty()).then(Mono.defer(() -> release(lease))));
    }

    /**
     * The provider said 429: pause the whole budget (every replica) for its retry-after and
     * give back what this attempt was charged (the provider did not count it).
     */
    public Mono<Void> pushedBack(Lease lease, long retryAfterMs) {
        aimd.onSample(clock.millis(), AimdLimit.Outcome.RATE_LIMITED, inFlightHere.get());
        return detached(bounded(store.pause(key, Math.max(1, retryAfterMs)))
                .then(bounded(store.adjust(key, lease.chargedAtMs(), -lease.job().tokens(), -1)))
                .onErrorResume(e -> Mono.empty())
                .then(Mono.defer(() -> release(lease))));
    }

    /**
     * The provider said 503 (overloaded): the call did not run and the provider did not count
     * it. Teach the concurrency limit, give back what this attempt was charged (or the budget
     * fills with calls that never happened), free the slot.
     */
    public Mono<Void> overloaded(Lease lease) {
        aimd.onSample(clock.millis(), AimdLimit.Outcome.OVERLOAD, inFlightHere.get());
        return detached(bounded(store.adjust(key, lease.chargedAtMs(), -lease.job().tokens(), -1))
                .onErrorResume(e -> Mono.empty())
                .then(Mono.defer(() -> release(lease))));
    }

    /**
     * Runs {@code work} (store calls that end a lease) to its end whoever waits on it, and tells
     * when it ended. A client often closes its connection as soon as it has read the answer,
     * which cancels the exchange while the slot is still being given back; cancelled, the
     * release would never reach the store and the slot would stay held until its lease expires.
     */
    private Mono<Void> detached(Mono<Void> work) {
        Sinks.Empty<Void> ended = Sinks.empty();
        pending.run(work.doFinally(s -> ended.tryEmitEmpty())); // store errors are handled in work
        return ended.asMono();
    }

    /** The provider's own count, where it reports one: never believe there is more room than it says. */
    public Mono<Void> correct(long remainingRequests, long remainingTokens, long resetMs) {
        BudgetLimits limits = limits();
        if (!ProviderBudget.correctionMayCharge(limits, remainingRequests, remainingTokens)) return Mono.empty();
        return detached(bounded(store.correct(key, limits, remainingRequests, remainingTokens, resetMs))
                .onErrorResume(e -> Mono.empty()));
    }

    private Mono<Void> release(Lease lease) {
        if (!live.remove(lease.leaseId())) return Mono.empty(); // already released
        return bounded(store.release(key, lease.leaseId()))
                .onErrorResume(e -> Mono.just(false)) // the lease expires on its own
                .doFinally(s -> {
                    inFlightHere.decrementAndGet();
                    loop.schedule(this::pump);
                })
                .then();
    }

    /**
     * Every store call ends within the timeout, with an error when the store does not answer: a
     * pump waiting on a silent store would hold the loop's {@code pumping} flag forever, and a
     * release that never ended would hold the client's response.
     */
    private <T> Mono<T> bounded(Mono<T> call) {
        return call.timeout(storeTimeout);
    }

    /** A store call the loop needs a value from: bounded, and an empty answer is an error too. */
    private <T> Mono<T> answered(Mono<T> call) {
        return bounded(call).switchIfEmpty(Mono.error(() -> new IllegalStateException("the budget store answered nothing")));
    }
}
