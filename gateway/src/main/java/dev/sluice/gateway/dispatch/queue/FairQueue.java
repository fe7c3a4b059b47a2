package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.BiPredicate;

/**
 * The designed queue in front of the provider: a lane per tenant, served fairly in tokens,
 * interactive work before batch, bounded in size.
 *
 * <p><b>Discipline: a weighted virtual token counter (VTC, Sheng et al., "Fairness in Serving
 * Large Language Models", OSDI 2024).</b> Each lane keeps a counter of the tokens it has been
 * served divided by its weight; the next job comes from the waiting lane with the lowest
 * counter. A lane that starts waiting again has its counter lifted to the lowest counter among
 * the lanes already waiting less a bounded credit ({@link Lanes}), so idle time banks little and
 * a newcomer neither takes over the queue nor waits behind the others' backlog. Chosen over
 * deficit round robin because a page of 800 tokens and a document of 50 000 cost what they cost
 * with no quantum to tune (DRR's quantum must exceed the largest job or rounds go empty, and
 * then its service is bursty by a quantum per lane); because counters can be corrected when the
 * real usage is known ({@link #reconcile}); and because "the lowest counter's head, or wait" is
 * what the provider's budget needs: if that head does not fit the budget, {@link #next} returns
 * nothing rather than skipping to smaller jobs, which would starve big ones. Service order is
 * predictable from the counters, which gives {@link #aheadOf} for the door ({@link ServiceOrder}).
 * A tenant's weight is 1 / its tier's priority, and the door may place a job behind promises
 * made before it ({@link #enqueue(Job, long)}); both are counter arithmetic ({@link Lanes}).
 *
 * <p><b>Interactive before batch, with a reserved floor.</b> While any interactive job waits,
 * no batch job is dispatched (and if the interactive job chosen does not fit yet, nothing is).
 * Fairness between tenants holds within each class; a tenant's interactive and batch service
 * share one counter. Besides, batch may never take the last {@code interactiveFloor} of any
 * budget dimension ({@link BudgetView#admits}): a batch job goes only if, after it, at least
 * {@code ceil(floor × limit)} tokens, requests and in-flight slots stay free. The reserve
 * holds whether or not an interactive job is waiting at that instant: its point is that a
 * person arriving while a backfill saturates the provider finds room at once, instead of
 * waiting up to a minute for the window to slide. The price: under batch-only load the budget
 * runs at {@code (1 - floor)} of its limits. Batch may starve while interactive load alone
 * saturates the budget; that is the order asked for.
 *
 * <p><b>Room kept for who is owed it.</b> A tenant refused at the door is counted ahead of
 * whoever the door admits after it; when room frees sooner than the door foresaw, a lane further
 * along waits for that tenant a second at most ({@link Awaited}, {@link #refused}), so the room
 * does not go to whoever is back first.
 *
 * <p><b>Across replicas</b> each replica has its own queue; with Redis, counters are shared
 * ({@link ReplicaTally}). Alone, none of that is called and the queue is as above.
 *
 * <p>Single-threaded by contract (one serialized dispatcher drives it); time is an argument.
 * Call {@link #expire} before {@link #next} so dead work never reaches the provider.
 */
public final class FairQueue {
    private final int capacity;
    private final double interactiveFloor;
    private final Lanes lanes;
    private final ServiceOrder order;
    private final TenantLanes tenants;
    private final ReplicaTally tally = new ReplicaTally();
    private final Map<String, Job> queued = new HashMap<>();
    /** Tenants refused here and expected back (null without credit: idle time banks nothing, so nothing is owed). */
    private final Awaited awaited;

    private int interactive;

    /**
     * @param capacity         jobs held at most, whatever the load (memory stays bounded)
     * @param interactiveFloor share of each budget dimension batch may not take, in [0, 1)
     */
    public FairQueue(int capacity, double interactiveFloor) {
        this(capacity, interactiveFloor, 0);
    }

    /**
     * The dispatcher's queue for a provider budget of {@code tokensPerMinute}: credit for half
     * of its minute (see {@link Lanes}). Enough to pay back three tenants a second apart whose
     * books went out before the last three asked (a quarter left them 200, 200, 200, 100, 100,
     * 100 pages over 90 s: {@code FairOverARunTest}); too little to hand a tenant back from idle
     * the next minute whole.
     */
    public static FairQueue forBudget(int capacity, double interactiveFloor, long tokensPerMinute) {
        return new FairQueue(capacity, interactiveFloor, Math.max(0, tokensPerMinute) / 2);
    }

    /**
     * @param credit how far below the lowest waiting counter a lane that (re)joins may start,
     *               in tokens × priority; 0: idle time banks nothing
     */
    public FairQueue(int capacity, double interactiveFloor, long credit) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        if (!(interactiveFloor >= 0 && interactiveFloor < 1)) {
            throw new IllegalArgumentException("interactiveFloor must be in [0, 1), was " + interactiveFloor);
        }
        if (credit < 0 || credit > Long.MAX_VALUE / 4)
            throw new IllegalArgumentException("credit out of range: " + credit);
        this.capacity = capacity;
        this.interactiveFloor = interactiveFloor;
        this.lanes = new Lanes(credit);
        this.order = new ServiceOrder(lanes);
        this.tenants = new TenantLanes(lanes, order, () -> interactive > 0);
        this.awaited = credit == 0 ? null : new Awaited(credit / 25, Awaited.PATIENCE_MS);
    }

    /** Queues {@code job} at the tail of its tenant's lane; false when the queue is full. */
    public boolean enqueue(Job job) {
        return enqueue(job, Long.MIN_VALUE);
    }

    /**
     * Queues {@code job}, to be served no earlier than when its lane's counter would be
     * {@code turnAtLeast} (the door's {@link DoorDecision#turnAtLeast}: behind promises made
     * before it). Its lane is charged from its own counter when it goes, so what it waited
     * past its fair turn stays owed to it.
     */
    public boolean enqueue(Job job, long turnAtLeast) {
        return enqueue(job, turnAtLeast, Long.MIN_VALUE);
    }

    /**
     * {@link #enqueue(Job, long)}, the door having told the job it would start by {@code startsByMs}
     * ({@code Long.MIN_VALUE}: at once). Another replica's lanes wait for it once that time has come
     * ({@link #holdNotDueAfter}).
     */
    public boolean enqueue(Job job, long turnAtLeast, long startsByMs) {
        if (queued.size() >= capacity) return false;
        add(job, false);
        if (turnAtLeast != Long.MIN_VALUE) lanes.promise(job.id(), turnAtLeast);
        if (startsByMs > job.enqueuedAtMs()) lanes.promiseStart(job.id(), startsByMs);
        return true;
    }

    /**
     * Puts a job that was handed out back at the head of its lane, ahead of its tenant's other
     * work and with the counter charge of its dispatch undone: after an upstream 429 (pass
     * {@link Job#nextAttempt()}: the attempts are the caller's to bound), or when the budget
     * refused it after all. Allowed past capacity: the job was already accepted.
     */
    public void requeueAtHead(Job job) {
        Lanes.Lane lane = lanes.get(job.tenant());
        if (lane != null) lane.charge(-Lanes.cost(job));
        add(job, true);
    }

    private void add(Job job, boolean atHead) {
        if (queued.containsKey(job.id())) throw new IllegalArgumentException("job " + job.id() + " is already queued");
        Lanes.Lane lane = lanes.join(job);
        if (atHead) lane.of(job.jobClass()).addFirst(job);
        else lane.of(job.jobClass()).addLast(job);
        queued.put(job.id(), job);
        if (job.jobClass() == JobClass.INTERACTIVE) interactive++;
        if (awaited != null) awaited.joined(job.tenant());
    }

    /**
     * The job to send now, taken off the queue, or empty: nothing waits, or the job whose turn
     * it is does not fit {@code budget} yet (then wait for room; do not skip it).
     */
    public Optional<Job> next(BudgetView budget) {
        List<Awaited.Tenant> waitFor = awaited();
        Served served = served(waitFor);
        if (!waitFor.isEmpty()) {
            Served unheld = served(List.of());
            if (unheld != null && (served == null || unheld.lane() != served.lane())) {
                Job first = unheld.lane().of(unheld.jobClass()).peekFirst();
                if (budget.admits(first, interactiveFloor))
                    awaited.holding(waitFor, unheld.lane().served, first.enqueuedAtMs(), lanes.now());
            }
        }
        if (served == null) return Optional.empty();
        Lanes.Lane lane = served.lane();
        JobClass c = served.jobClass();
        Job head = lane.of(c).peekFirst();
        if (!budget.admits(head, interactiveFloor)) return Optional.empty();
        lane.of(c).pollFirst();
        forget(head);
        lane.charge(Lanes.cost(head));
        lanes.dropDrained(tally);
        return Optional.of(head);
    }

    /** The lane whose head goes next, and of which class. */
    private record Served(Lanes.Lane lane, JobClass jobClass) {}

    /**
     * Interactive while any interactive job waits, except that a batch job past the start its door
     * promised ({@link Lanes#overdue}) goes first (the lowest counter among those): batch yields to
     * interactive, but not past its word. Null when nothing may go.
     */
    private Served served() {
        return served(awaited());
    }

    /** {@link #served()}, lanes that wait for one of {@code waitFor} held back ({@link Awaited#holds}). */
    private Served served(List<Awaited.Tenant> waitFor) {
        if (interactive > 0 && queued.size() > interactive) {
            Lanes.Lane overdue = lanes.lowestOverdue(JobClass.BATCH);
            if (overdue != null) return new Served(overdue, JobClass.BATCH);
        }
        JobClass c = interactive > 0 ? JobClass.INTERACTIVE : JobClass.BATCH;
        BiPredicate<Lanes.Lane, Job> held =
                waitFor.isEmpty() ? null : (l, head) -> awaited.holds(waitFor, l.served, head.enqueuedAtMs());
        long dueBy = notDueHeldAt(c);
        if (dueBy != Long.MIN_VALUE) {
            BiPredicate<Lanes.Lane, Job> notDue = (l, head) -> lanes.promisedStart(head) > dueBy;
            held = held == null ? notDue : held.or(notDue);
        }
        Lanes.Lane lane = held == null ? lanes.lowest(c, tally.holdAbove()) : lanes.lowest(c, tally.holdAbove(), held);
        return lane == null ? null : new Served(lane, c);
    }

    /**
     * From when a lane's next job counts as promised later, so that the lane waits; {@code Long.MIN_VALUE}:
     * none waits so. While another replica's promise has come ({@link #holdNotDueAfter}, the pump's time), or
     * while a job of class {@code c} here is past its promised start less the door's margin
     * ({@link Lanes#overdue}, the queue's time): such a job escapes every hold but would still come after
     * lanes with lower counters, and a job told to start later must not take its room (seed 14 of the
     * retrying crowd behind an edge: pages told 129-130 s sent as pages told 126 s were dropped).
     */
    private long notDueHeldAt(JobClass c) {
        if (tally.holdingNotDue()) return tally.dueCheckedAt();
        if (lanes.now() != Long.MIN_VALUE && lanes.lowestOverdue(c) != null) return lanes.now();
        return Long.MIN_VALUE;
    }

    /** The tenants refused here that lanes now wait for ({@link Awaited#at}); empty when none. */
    private List<Awaited.Tenant> awaited() {
        if (awaited == null || awaited.isEmpty() || queued.isEmpty()) return List.of();
        return awaited.at(
                lanes.now(),
                tenant -> {
                    Lanes.Lane lane = lanes.get(tenant);
                    return lane != null && lane.waiting();
                },
                lanes.startsIfJoining());
    }

    /**
     * {@code tenant} asked at {@code nowMs} and was refused (at this door, or at every door of its
     * route): room that frees before its turn is kept for it a while ({@link Awaited}).
     */
    public void refused(String tenant, long nowMs) {
        if (awaited != null) awaited.refused(tenant, nowMs);
    }

    /** The job {@link #next} would hand out now if the budget had room for it; empty when nothing waits. */
    public Optional<Job> peek() {
        return headOf(served());
    }

    private static Optional<Job> headOf(Served served) {
        return served == null
                ? Optional.empty()
                : Optional.of(served.lane().of(served.jobClass()).peekFirst());
    }

    /** The job {@link #peek} would give were no lane held back (for another replica's, {@link #holdAbove}, or a tenant awaited). */
    public Optional<Job> peekUnheld() {
        long held = tally.holdAbove();
        long due = tally.othersDueAt();
        long checkedAt = tally.dueCheckedAt();
        tally.holdAbove(Long.MAX_VALUE);
        tally.othersDueAt(Long.MAX_VALUE, checkedAt);
        try {
            return headOf(served(List.of()));
        } finally {
            tally.holdAbove(held);
            tally.othersDueAt(due, checkedAt);
        }
    }

    /**
     * While another replica holds work whose promised start has come by {@code atMs}
     * ({@link HoldBack#dueAt}; {@code Long.MAX_VALUE}: none), lanes whose next job was promised a later
     * start wait, so that the room a call here frees goes to the promise made first wherever it was made:
     * a replica sees the room its own calls free before the others do. A job due here is never held.
     * Read at {@code nowMs}.
     */
    public void holdNotDueAfter(long atMs, long nowMs) {
        tally.othersDueAt(atMs, nowMs);
    }

    /** The lowest counter among lanes waiting here (of the class served now); empty when none waits. */
    public OptionalLong lowestWaiting() {
        return lanes.lowestWaiting();
    }

    /** The soonest promised start after {@code nowMs} of a lane's next job: when a lane held for not being due may go. */
    public long nextPromisedStart(long nowMs) {
        long soonest = Long.MAX_VALUE;
        for (Lanes.Lane lane : lanes.all().values()) {
            for (JobClass c : JobClass.values()) {
                Job head = lane.of(c).peekFirst();
                if (head == null) continue;
                long at = lanes.promisedStart(head);
                if (at > nowMs) soonest = Math.min(soonest, at);
            }
        }
        return soonest;
    }

    /** Every queued job in predicted service order, as {@link #position} counts (see {@link #turns}). */
    public List<Job> inServiceOrder() {
        List<Turn> turns = turns();
        List<Job> jobs = new ArrayList<>(turns.size());
        for (Turn t : turns) jobs.add(t.job());
        return jobs;
    }

    /** A job in predicted service order, and the counter at which its turn comes. */
    public record Turn(Job job, long tag) {}

    /**
     * Every queued job in predicted service order with the counter at which its turn comes:
     * interactive before batch; within a class, by the lane's counter at the job, ties to the
     * older lane.
     */
    public List<Turn> turns() {
        return order.turns(queued.size());
    }

    /** Each tenant's lane as the door reads it: its turn in counter order, what it has queued. */
    public TenantLanes tenants() {
        return tenants;
    }

    /** Whether any queued job's deadline is at or before {@code ms}. */
    public boolean anyDeadlineBy(long ms) {
        for (Job job : queued.values()) if (job.deadlineMs() <= ms) return true;
        return false;
    }

    /** Takes a job off the queue (its client has gone). */
    public Optional<Job> remove(String jobId) {
        Job job = queued.get(jobId);
        if (job == null) return Optional.empty();
        lanes.get(job.tenant()).of(job.jobClass()).remove(job);
        forget(job);
        lanes.dropDrained(tally);
        return Optional.of(job);
    }

    /**
     * The time now, for what is measured in time (where a lane that joins starts, {@link Lanes#startOf});
     * the dispatcher's sweeps and arrivals tell it. A drained lane the burst kept may be forgotten once it is past.
     */
    public void advanceTo(long nowMs) {
        lanes.advanceTo(nowMs);
        lanes.dropDrained(tally);
    }

    /** Takes every job whose deadline has passed at {@code nowMs} off the queue and returns them. */
    public List<Job> expire(long nowMs) {
        advanceTo(nowMs);
        List<Job> expired = new ArrayList<>();
        for (Lanes.Lane lane : lanes.all().values()) {
            for (JobClass c : JobClass.values()) {
                for (Iterator<Job> it = lane.of(c).iterator(); it.hasNext(); ) {
                    Job job = it.next();
                    if (job.deadlineMs() <= nowMs) {
                        it.remove();
                        expired.add(job);
                    }
                }
            }
        }
        expired.forEach(this::forget);
        if (!expired.isEmpty()) lanes.dropDrained(tally);
        return expired;
    }

    /**
     * Corrects a tenant's counter once a call's real usage is known ({@code actual - estimate}),
     * so fairness is in tokens used, not tokens guessed. Ignored if the lane is gone.
     */
    public void reconcile(String tenant, long deltaTokens) {
        Lanes.Lane lane = lanes.get(tenant);
        if (lane != null) lane.charge(deltaTokens * lane.priority);
    }

    // Among other replicas (see ReplicaTally): the dispatcher reports, rebases and sets the hold from LaneShare.

    /** From now on the service of each lane is tallied for {@link #takeReports}. */
    public void shareWithOtherReplicas() {
        tally.share();
    }

    /** What to report to the other replicas now; the tally starts again from zero ({@link ReplicaTally#takeReports}). */
    public List<LaneShare.Report> takeReports() {
        return tally.takeReports(lanes, interactive > 0);
    }

    /** A report that never reached the others: its service is reported again next time. */
    public void restore(List<LaneShare.Report> reports) {
        tally.restore(lanes, reports);
    }

    /** Sets each listed tenant's counter to the fleet's, plus what it was served here since ({@link ReplicaTally#rebase}). */
    public void rebase(Map<String, Long> counters) {
        tally.rebase(lanes, counters);
    }

    /** Lanes whose counter is above {@code counter} wait ({@link HoldBack#aboveAt}); {@code Long.MAX_VALUE}: none. */
    public void holdAbove(long counter) {
        tally.holdAbove(counter);
    }

    /** How far below the lowest waiting counter a lane that (re)joins may start (see {@link Lanes}). */
    public long credit() {
        return lanes.credit();
    }

    /** The work ahead of a queued job in service order; empty if it is not queued. */
    public Optional<WorkAhead> ahead(String jobId) {
        Job job = queued.get(jobId);
        return job == null ? Optional.empty() : Optional.of(order.ahead(job, true));
    }

    /** 1-based place of a queued job in the predicted service order. */
    public OptionalInt position(String jobId) {
        return ahead(jobId).map(a -> OptionalInt.of(a.position())).orElse(OptionalInt.empty());
    }

    /** The work that would be ahead of {@code candidate} were it enqueued now (for the door). */
    public WorkAhead aheadOf(Job candidate) {
        return order.ahead(candidate, false);
    }

    /**
     * When the queue is full, the job that makes room for {@code candidate}: the last of the
     * longest lane, if the candidate's tenant holds at least two jobs fewer
     * ({@link ServiceOrder#victimFor}). The bound on memory stays; the place in it is shared by
     * tenant: a tenant with nothing in line is not refused because others filled the queue, the
     * one holding most of it is. Empty when the queue has room, or the candidate's lane is
     * (about) the longest.
     */
    public Optional<Job> victimFor(Job candidate) {
        if (!isFull()) return Optional.empty();
        return order.victimFor(candidate);
    }

    public int depth() {
        return queued.size();
    }

    public int depth(JobClass c) {
        return c == JobClass.INTERACTIVE ? interactive : queued.size() - interactive;
    }

    public int capacity() {
        return capacity;
    }

    public boolean isFull() {
        return queued.size() >= capacity;
    }

    public double interactiveFloor() {
        return interactiveFloor;
    }

    private void forget(Job job) {
        lanes.forget(job.id());
        queued.remove(job.id());
        if (job.jobClass() == JobClass.INTERACTIVE) interactive--;
    }
}
