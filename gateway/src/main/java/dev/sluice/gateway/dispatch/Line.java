package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.FairQueue;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.store.DecisionBudget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.core.publisher.Sinks;

/**
 * The requests waiting on one provider budget: its fair queue, and for each job the ticket its
 * caller waits on. Every way a waiting request ends that is not a lease (pushed out of a full
 * line, giving way, past its deadline, doomed, spilled, shut down) is here, and each answers the
 * ticket once. On the dispatch loop only, except {@link #depth()}.
 */
final class Line {
    /** A ticket's state once its caller left or was refused: no lease may be handed to it after. */
    static final Lease CANCELLED = new Lease("", "", null, 0, 0);

    /**
     * A waiting request and the one place its lease (or its refusal) is delivered. Which budget's
     * line it waits in is chosen on the loop ({@link RouteChoice#enter}); {@code owner} says
     * which, once placed.
     */
    static final class Ticket {
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

        /** Refused before a lease: the caller gets {@code why}. False when it had left or had its lease. */
        boolean refuse(RuntimeException why) {
            if (!state.compareAndSet(null, CANCELLED)) return false;
            sink.tryEmitError(why);
            return true;
        }
    }

    private final FairQueue queue;
    private final Map<String, Ticket> tickets = new HashMap<>();
    /** The line's length, written on the loop, read by the depth gauge. */
    private volatile int depth;

    Line(FairQueue queue) {
        this.queue = queue;
    }

    FairQueue queue() {
        return queue;
    }

    int depth() {
        return depth;
    }

    /** Refuses a ticket that never joined a line (a refusal at the door, or shutting down). */
    static void fail(Ticket ticket, RuntimeException why) {
        ticket.state.set(CANCELLED);
        ticket.sink.tryEmitError(why);
    }

    /**
     * Queues an admitted job for {@code owner}, making room in a full line if the door allowed it.
     * False, with the ticket refused, when the line is full.
     */
    boolean add(Ticket ticket, Job job, boolean atHead, long turnAtLeast, ProviderDispatcher owner) {
        if (atHead) {
            queue.requeueAtHead(job);
        } else {
            queue.victimFor(job).ifPresent(this::pushOut);
            // When the door told it it would start (none: at once), which other replicas' lanes wait for once it comes.
            long est = ticket.estimatedWaitMs;
            long startsBy = job.enqueuedAtMs() + est;
            if (est <= 0) startsBy = Long.MIN_VALUE;
            else if (startsBy < job.enqueuedAtMs()) startsBy = Long.MAX_VALUE; // saturates
            if (!queue.enqueue(job, turnAtLeast, startsBy)) {
                fail(
                        ticket,
                        GatewayBusyException.queueFull(queue.position(job.id()).orElse(queue.depth())));
                return false;
            }
        }
        ticket.job = job;
        ticket.owner = owner;
        tickets.put(job.id(), ticket);
        refreshDepth();
        return true;
    }

    /** The client left while its job waited here. */
    void forget(Ticket ticket) {
        String id = ticket.job.id();
        if (tickets.remove(id, ticket)) queue.remove(id);
        refreshDepth();
    }

    /** A job admitted within the burst gives its place to one owed an earlier turn: busy, at once. */
    void giveWay(DoorDecision.Displaced displaced) {
        displace(displaced, GatewayBusyException::gaveWay);
    }

    /**
     * A job admitted within the burst on a view of the budget that other replicas' sends of the
     * same moment had already filled: busy, at once, with the wait it would now have.
     */
    void roomTaken(DoorDecision.Displaced displaced) {
        displace(displaced, GatewayBusyException::roomTakenElsewhere);
    }

    /** Why a displaced job is answered busy, from its place, its wait now and the most it would wait. */
    private interface Displacement {
        GatewayBusyException busy(int position, long waitMs, long maxWaitMs);
    }

    /** The displaced job leaves the queue, if it is still there, and its caller is answered busy at once. */
    private void displace(DoorDecision.Displaced displaced, Displacement why) {
        Job job = displaced.job();
        int position = queue.position(job.id()).orElse(0);
        if (queue.remove(job.id()).isEmpty()) return;
        Ticket t = tickets.remove(job.id());
        if (t != null) t.refuse(why.busy(position, displaced.waitMs(), job.maxWaitMs()));
        refreshDepth();
    }

    /** A full queue's place goes to a tenant with less in line: the longest lane's last job leaves it, busy. */
    private void pushOut(Job victim) {
        int position = queue.position(victim.id()).orElse(0);
        queue.remove(victim.id());
        Ticket t = tickets.remove(victim.id());
        if (t != null) t.refuse(GatewayBusyException.pushedOut(position));
    }

    /** The ticket of a job in line, or null. */
    Ticket ticket(String jobId) {
        return tickets.get(jobId);
    }

    /** The job left the line with its lease: its ticket is no longer this line's. */
    void leased(String jobId) {
        tickets.remove(jobId);
    }

    /** What the request at the head may wait on the store (unbounded when the line is empty). */
    DecisionBudget headBudget() {
        return queue.peek().map(j -> tickets.get(j.id())).map(t -> t.budget).orElse(DecisionBudget.UNLIMITED);
    }

    /** Back to the head of its lane (the store did not take it): it goes first when there is room. */
    void requeueAtHead(Job job) {
        queue.requeueAtHead(job);
        refreshDepth();
    }

    /** Every job in line leaves it, its caller told {@code why}. */
    void refuseAll(Supplier<RuntimeException> why) {
        for (Job job : queue.inServiceOrder()) {
            queue.remove(job.id());
            Ticket t = tickets.remove(job.id());
            if (t != null) t.refuse(why.get());
        }
        refreshDepth();
    }

    /** Jobs whose deadline passed before {@code beforeMs} leave the line with busy. */
    void expire(long beforeMs) {
        for (Job expired : queue.expire(beforeMs)) {
            Ticket t = tickets.remove(expired.id());
            if (t != null) t.refuse(GatewayBusyException.waitedTooLong(t.estimatedWaitMs));
        }
        refreshDepth();
    }

    /**
     * Every job whose deadline comes by {@code horizonMs}, when nothing can go before {@code waitMs}
     * from now, leaves the line, busy, with its place and that wait.
     */
    void dropDoomed(long nowMs, long horizonMs, long waitMs) {
        if (!queue.anyDeadlineBy(horizonMs)) return;
        List<Job> order = queue.inServiceOrder();
        for (int i = 0; i < order.size(); i++) {
            Job job = order.get(i);
            if (job.deadlineMs() > horizonMs) continue;
            queue.remove(job.id());
            Ticket t = tickets.remove(job.id());
            if (t == null) continue;
            long maxWaitMs = job.maxWaitMs();
            // A promise made within the door's burst span is not firm yet (Door.softForMs): one made on a view of
            // the budget that another replica's sends of the same moment had already filled is the door's refusal,
            // told late by a few milliseconds, not a promise broken after a wait.
            t.refuse(
                    Door.soft(job, nowMs)
                            ? GatewayBusyException.roomTakenElsewhere(i + 1, waitMs, maxWaitMs)
                            : GatewayBusyException.cannotMakeIt(maxWaitMs, waitMs, i + 1, t.estimatedWaitMs));
        }
        refreshDepth();
    }

    void refreshDepth() {
        depth = queue.depth();
    }
}
