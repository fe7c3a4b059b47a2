package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.lease.BudgetCache;
import dev.sluice.gateway.dispatch.queue.BudgetView;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.FairQueue;
import dev.sluice.gateway.dispatch.queue.HoldBack;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.store.DecisionBudget;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The dispatch loop of one provider budget: it takes the job whose turn it is when the shared
 * budget has room for it, charges the budget (atomically, across replicas) and hands the lease
 * to its caller ({@link ProviderDispatcher#handOver}); when the head does not fit it waits for
 * room, and dead work (past its deadline, or doomed to miss it) leaves the line first. Runs on
 * {@code loop} only, so the queue needs no lock; {@link #pumpSoon} may be called from any thread.
 */
final class Pump {
    private static final Logger log = LoggerFactory.getLogger(Pump.class);
    /** How deep answers on the loop go on inline before the next is scheduled (bounds the stack). */
    private static final int MAX_INLINE = 16;
    /**
     * How long past its deadline a job may still be sent. A pump already under way when the job
     * arrives is the gateway's time, not the caller's wait: without this (and the deadline
     * counted from the loop), {@code X-Sluice-Max-Wait: 0} on an idle provider, where the door
     * estimates no wait, expired in the first pump: a 503 for a request that could start at once.
     */
    static final long DISPATCH_GRACE_MS = 100;

    private final ProviderDispatcher dispatcher;
    private final Line line;
    private final FairQueue queue;
    private final BudgetCache budget;
    private final ProviderHealth health;
    private final Clock clock;
    private final Scheduler loop;
    private final PendingWork pending;
    private boolean pumping;
    private boolean pumpAgain;
    /** A pump is scheduled and has not started: frees meanwhile need no other. */
    private final AtomicBoolean pumpQueued = new AtomicBoolean();
    /** The loop's thread (a single-thread scheduler), seen by the pump; an answer there goes on inline. */
    private volatile Thread loopThread;

    private int inline;
    private Disposable wakeUp;
    /** Whether this budget's lanes wait for other replicas' ({@link LaneSharing}). */
    private HoldBack hold = HoldBack.NONE;
    /**
     * Since when the hold has kept a job that fits the budget waiting while the lowest lane it
     * waits for stayed where it was ({@code heldFor}); MIN_VALUE: not so held.
     */
    private long heldWithRoomSinceMs = Long.MIN_VALUE;

    private long heldFor;

    /** @param dispatcher the budget's limits and door capacity as they are now, and where a lease is handed over */
    Pump(
            ProviderDispatcher dispatcher,
            Line line,
            BudgetCache budget,
            ProviderHealth health,
            Clock clock,
            Scheduler loop,
            PendingWork pending) {
        this.dispatcher = dispatcher;
        this.line = line;
        this.queue = line.queue();
        this.budget = budget;
        this.health = health;
        this.clock = clock;
        this.loop = loop;
        this.pending = pending;
    }

    /** The fleet's hold on this budget's lanes; the line is tried again if one was held back. */
    void holdBack(HoldBack next) {
        boolean wasHolding = hold.holdsAt(clock.millis());
        hold = next;
        if (wasHolding) pump(); // a lane held back may go now; otherwise the pump's own wake-ups suffice
    }

    /** A slot was freed (any thread): one pump on the loop, however many frees come before it runs. */
    void pumpSoon() {
        if (pumpQueued.compareAndSet(false, true)) loop.schedule(this::pump);
    }

    /** Dispatch what fits, in turn, until the head does not fit; then wait for room. On {@code loop} only. */
    void pump() {
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
        BudgetLimits limits = dispatcher.limits();
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
        long sentAt = clock.millis();
        // Asked for the job at the head of the line, whose request waits on it.
        budget.snapshot(limits, line.headBudget())
                .publishOn(loop)
                .subscribe(
                        snapshot -> {
                            budget.remember(snapshot);
                            reviewPromises(sentAt);
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
        long now = clock.millis();
        queue.holdAbove(hold.aboveAt(now));
        queue.holdNotDueAfter(hold.dueAt(now), now);
        Optional<Job> next = queue.next(view);
        long patience = next.isEmpty() && hold.holdsAt(now) ? heldWithRoom(view, now) : Long.MIN_VALUE;
        if (patience == 0) {
            // The replica held for leaves the room idle: go, until its lane moves.
            queue.holdAbove(Long.MAX_VALUE);
            queue.holdNotDueAfter(Long.MAX_VALUE, now);
            next = queue.next(view);
        } else if (patience < 0) {
            heldWithRoomSinceMs = Long.MIN_VALUE;
        }
        line.refreshDepth();
        if (next.isEmpty()) {
            if (remembered && queue.depth() > 0) {
                fromStore(limits);
                return;
            }
            queue.peek().ifPresent(this::dropDoomed);
            BudgetSnapshot last = budget.last();
            long hint = last == null
                    ? 100
                    : Math.max(
                            20, Math.min(1_000, last.pausedForMs() > 0 ? last.pausedForMs() : limits.inFlightHintMs()));
            long wake = patience > 0 ? Math.min(hint, patience) : hint;
            // A lane held until its own promised start comes goes then.
            long due = hold.dueAt(now) <= now ? queue.nextPromisedStart(now) : Long.MAX_VALUE;
            if (due != Long.MAX_VALUE) wake = Math.min(wake, Math.max(1, due - now));
            stopPumping(queue.depth() == 0 ? -1 : wake, null);
            return;
        }
        Job job = next.get();
        Line.Ticket ticket = line.ticket(job.id());
        String leaseId = UUID.randomUUID().toString();
        // The leaving schedule serves the door's estimates for jobs that wait: not needed when none do.
        DecisionBudget waiting = ticket == null ? DecisionBudget.UNLIMITED : ticket.budget;
        long sentAt = clock.millis();
        budget.tryAcquire(limits, job, leaseId, queue.depth() > 0, waiting)
                .subscribe(
                        decision -> {
                            // The budget as it is now, this dispatch included: the door counts it from here, not
                            // from the pump's snapshot, which a burst of dispatches leaves behind. Remembered before
                            // the lease is handed over: a call that fails at once gives its slot back after this,
                            // not before it (its release would be overwritten, and the slot look taken for ever).
                            budget.remember(decision.snapshot());
                            // On the store's reply thread: an admitted job's caller goes on from here at once (the
                            // hand-over is thread-safe); the queue's own bookkeeping follows on the loop.
                            if (decision.admitted()) dispatcher.handOver(ticket, job, leaseId, decision);
                            if (Thread.currentThread() == loopThread && inline < MAX_INLINE) {
                                // Answered at once on the loop (spent from the replica's slice, or the in-memory
                                // budget): go on here instead of a task hop per call, a few calls deep at most.
                                inline++;
                                try {
                                    afterAcquire(job, decision, view, limits, remembered, sentAt);
                                } finally {
                                    inline--;
                                }
                            } else {
                                loop.schedule(() -> afterAcquire(job, decision, view, limits, remembered, sentAt));
                            }
                        },
                        error -> loop.schedule(() -> {
                            // No answer in time: the charge may still have landed. Releasing the lease id frees the
                            // slot either way (Redis runs it after the acquire); the tokens stay counted, the safe
                            // side.
                            pending.run(budget.release(leaseId).onErrorResume(e -> Mono.just(false)));
                            line.requeueAtHead(job);
                            stopPumping(250, error);
                        }));
    }

    /** After an acquire, on the loop: remember the budget it returned, then the next job, or wait as told. */
    private void afterAcquire(
            Job job, BudgetDecision decision, BudgetView view, BudgetLimits limits, boolean remembered, long sentAt) {
        if (!decision.admitted()) {
            // Another replica took the room this view showed: back to the head, and what can no longer start
            // in time is told now, on the budget as the store just gave it, not after the wait.
            line.requeueAtHead(job);
            reviewPromises(sentAt);
            dropDoomed(job);
            stopPumping(Math.max(20, Math.min(decision.waitMs() < 0 ? 1_000 : decision.waitMs(), 5_000)), null);
            return;
        }
        line.leased(job.id());
        dispatchFrom(view.after(job), limits, remembered);
    }

    /**
     * Whether the hold keeps a job waiting that the budget has room for by far (at most half of
     * it used), and for how much longer ({@code > 0}), or no longer ({@code 0}: the lowest lane held
     * for has not moved in {@link HoldBack#patienceMs}, so the replica holding it does not send it:
     * a pump slowed by its store or its CPU, while the provider idles); negative: not so held. A
     * hold exists so that the lagging replica takes the next room, not so that nobody does. Near
     * the limits the hold stands: the room left may be what the other replica promised.
     */
    private long heldWithRoom(BudgetView view, long now) {
        Optional<Job> head = queue.peekUnheld();
        if (head.isEmpty() || !view.admits(head.get(), queue.interactiveFloor()) || !view.halfFree()) return -1;
        if (heldWithRoomSinceMs == Long.MIN_VALUE || heldFor != hold.othersLowest()) {
            heldWithRoomSinceMs = now;
            heldFor = hold.othersLowest();
        }
        return Math.max(0, heldWithRoomSinceMs + hold.patienceMs() - now);
    }

    private void stopPumping(long wakeInMs, Throwable error) {
        pumping = false;
        if (error != null) log.warn("Budget {} did not answer: {}", dispatcher.key(), error.toString());
        if (pumpAgain) {
            loop.schedule(this::pump);
        } else if (wakeInMs >= 0) {
            if (wakeUp != null) wakeUp.dispose();
            wakeUp = loop.schedule(this::pump, wakeInMs, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The promises not yet confirmed, on the budget the store has just shown (asked at {@code storeSentAtMs};
     * MIN_VALUE: a share of the fleet's lines, no store call): those it no longer keeps are told at once.
     */
    void reviewPromises(long storeSentAtMs) {
        dispatcher.reviewPromises(storeSentAtMs).forEach(line::roomTaken);
        line.refreshDepth();
    }

    /** Dead work never reaches the provider: jobs past their deadline (and the grace) leave the line with busy. */
    private void expireDeadlines() {
        line.expire(clock.millis() - DISPATCH_GRACE_MS);
    }

    /**
     * Dead work, told early. Nothing in line goes before the job at its head, so when even the
     * head must wait for the window to free (after a burst spent the minute, about a minute),
     * every job whose deadline comes sooner cannot make it: it leaves the line now, busy, with
     * its place and that wait, instead of holding its caller until the deadline. The door
     * accepted these on its estimate; later arrivals owed their fair share went ahead of them.
     */
    private void dropDoomed(Job head) {
        long wait = Door.earliestSendMs(head, dispatcher.windows(), queue.interactiveFloor());
        if (wait <= 0) return;
        long now = clock.millis();
        line.dropDoomed(now, now + wait, wait);
    }
}
