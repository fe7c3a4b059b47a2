package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The designed queue in front of the provider (seed 000, case 4): a lane per tenant, served
 * fairly in tokens, interactive work before batch, bounded in size.
 *
 * <p><b>Discipline: a weighted virtual token counter (VTC, Sheng et al., "Fairness in Serving
 * Large Language Models", OSDI 2024).</b> Each lane keeps a counter of the tokens it has been
 * served divided by its weight; the next job comes from the waiting lane with the lowest
 * counter. A lane that starts waiting again has its counter lifted to the lowest counter among
 * the lanes already waiting less a bounded credit (below), so idle time banks little and a
 * newcomer neither takes over the queue nor waits behind the others' backlog. Chosen over deficit round robin because a page
 * of 800 tokens and a document of 50 000 cost what they cost with no quantum to tune (DRR's
 * quantum must exceed the largest job or rounds go empty, and then its service is bursty by a
 * quantum per lane); because counters can be corrected when the real usage is known
 * ({@link #reconcile}); and because "the lowest counter's head, or wait" is exactly seed 000's
 * loop: if that head does not fit the budget, {@link #next} returns nothing rather than
 * skipping to smaller jobs, which would starve big ones. Service order is predictable from
 * the counters, which gives {@link #aheadOf} for the door.
 *
 * <p><b>Credit, bounded (issue 15).</b> With no credit at all, whoever asks first when the
 * provider's minute turns takes it: a tenant whose book went out while the others were not yet
 * in line starts level with them when they come, its head start kept for good, and the door
 * refuses the late ones (six equal tenants served {@code [203, 204, 150, 149, 150, 145]}
 * pages). So a lane that (re)joins starts up to {@code credit} below the lowest waiting
 * counter (never below its own remembered counter, and counted from a monotone floor so that
 * newcomers do not compound it), and a drained lane is remembered while its counter is above
 * that start. The dispatcher gives a quarter of the provider's minute ({@link #forBudget}).
 *
 * <p><b>Promises.</b> The door may place a job behind promises its fair turn would break
 * ({@link #enqueue(Job, long)}): it is served no earlier than at a given counter, and its lane
 * is charged from its own counter when it goes, so the wait past its turn stays owed to it.
 *
 * <p><b>Weights.</b> A tenant's weight is 1 / its tier's priority: while both wait, a
 * priority-1 tenant is served twice the tokens of a priority-2 one and three times those of a
 * priority-3 one. Counters grow by {@code tokens × priority}, in exact integers. Sharing is
 * weighted, never strict, so no tier starves another.
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
 * <p><b>Across replicas (issue 15).</b> Each replica has its own queue. With Redis, its
 * dispatcher reports what each lane was served ({@link #takeReports}), takes back each tenant's
 * counter summed over every replica ({@link #rebase}) and holds back lanes ahead of the lowest
 * one waiting elsewhere ({@link #holdAbove}, {@link HoldBack}); see {@code LaneSharing}. Alone,
 * none of this is called and the queue is as above.
 *
 * <p>Single-threaded by contract (one serialized dispatcher drives it); time is an argument.
 * Call {@link #expire} before {@link #next} so dead work never reaches the provider.
 */
public final class FairQueue {
    private final int capacity;
    private final double interactiveFloor;
    /** How far (in counter units) a lane that (re)joins may start below the others: the credit idle time banks. */
    private final long credit;
    /** The lowest waiting counter seen so far (virtual time): where credit is counted from, also while nothing waits. */
    private long floor;
    /** Waiting lanes, and drained lanes whose counter is still ahead of every waiting one. */
    private final LinkedHashMap<String, Lane> lanes = new LinkedHashMap<>();
    private final Map<String, Job> queued = new HashMap<>();
    /** Jobs the door placed behind promises made earlier: the lowest counter at which each may be served. */
    private final Map<String, Long> turnAtLeast = new HashMap<>();
    private int interactive;
    /** Lanes whose counter is above this wait (across replicas, see {@link HoldBack}); MAX_VALUE: none. */
    private long holdAbove = Long.MAX_VALUE;
    /** Whether service is tallied for {@link #takeReports} (a replica among others); off, nothing is kept for it. */
    private boolean sharing;
    /** Service of lanes dropped since the last report, by tenant, still to be reported. */
    private final Map<String, Long> unsharedGone = new HashMap<>();

    private static final class Lane {
        long served; // VTC counter: Σ tokens × priority
        long unshared; // what of it was served here since the last report to the other replicas
        int priority;
        final ArrayDeque<Job> interactive = new ArrayDeque<>();
        final ArrayDeque<Job> batch = new ArrayDeque<>();

        Lane(long served, int priority) {
            this.served = served;
            this.priority = priority;
        }

        ArrayDeque<Job> of(JobClass c) {
            return c == JobClass.INTERACTIVE ? interactive : batch;
        }

        boolean waiting() {
            return !interactive.isEmpty() || !batch.isEmpty();
        }

        int size() {
            return interactive.size() + batch.size();
        }
    }

    /**
     * @param capacity         jobs held at most, whatever the load (memory stays bounded)
     * @param interactiveFloor share of each budget dimension batch may not take, in [0, 1)
     */
    public FairQueue(int capacity, double interactiveFloor) {
        this(capacity, interactiveFloor, 0);
    }

    /**
     * The dispatcher's queue for a provider budget of {@code tokensPerMinute}: credit for a
     * quarter of its minute (see the class comment: enough to even out who asked first at the
     * window's turn, too little to hand a bursty tenant the next minute).
     */
    public static FairQueue forBudget(int capacity, double interactiveFloor, long tokensPerMinute) {
        return new FairQueue(capacity, interactiveFloor, Math.max(0, tokensPerMinute) / 4);
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
        if (credit < 0 || credit > Long.MAX_VALUE / 4) throw new IllegalArgumentException("credit out of range: " + credit);
        this.capacity = capacity;
        this.interactiveFloor = interactiveFloor;
        this.credit = credit;
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
        if (queued.size() >= capacity) return false;
        add(job, false);
        if (turnAtLeast != Long.MIN_VALUE) this.turnAtLeast.put(job.id(), turnAtLeast);
        return true;
    }

    /**
     * Puts a job that was handed out back at the head of its lane, ahead of its tenant's other
     * work and with the counter charge of its dispatch undone: after an upstream 429 (pass
     * {@link Job#nextAttempt()}: the attempts are the caller's to bound), or when the budget
     * refused it after all. Allowed past capacity: the job was already accepted.
     */
    public void requeueAtHead(Job job) {
        Lane lane = lanes.get(job.tenant());
        if (lane != null) {
            lane.served -= cost(job);
            lane.unshared -= cost(job);
        }
        add(job, true);
    }

    private void add(Job job, boolean atHead) {
        if (queued.containsKey(job.id())) throw new IllegalArgumentException("job " + job.id() + " is already queued");
        Lane lane = lanes.get(job.tenant());
        if (lane == null) {
            lane = new Lane(startOf(null), job.priority());
            lanes.put(job.tenant(), lane);
        } else if (!lane.waiting()) {
            lane.served = startOf(lane);
        }
        lane.priority = job.priority();
        if (atHead) lane.of(job.jobClass()).addFirst(job);
        else lane.of(job.jobClass()).addLast(job);
        queued.put(job.id(), job);
        if (job.jobClass() == JobClass.INTERACTIVE) interactive++;
    }

    /**
     * The job to send now, taken off the queue, or empty: nothing waits, or the job whose turn
     * it is does not fit {@code budget} yet (then wait for room; do not skip it).
     */
    public Optional<Job> next(BudgetView budget) {
        JobClass c = interactive > 0 ? JobClass.INTERACTIVE : JobClass.BATCH;
        Lane lane = lowest(c);
        if (lane == null) return Optional.empty();
        Job head = lane.of(c).peekFirst();
        if (!budget.admits(head, interactiveFloor)) return Optional.empty();
        lane.of(c).pollFirst();
        forget(head);
        lane.served += cost(head);
        lane.unshared += cost(head);
        dropDrained();
        return Optional.of(head);
    }

    /** The job {@link #next} would hand out now if the budget had room for it; empty when nothing waits. */
    public Optional<Job> peek() {
        JobClass c = interactive > 0 ? JobClass.INTERACTIVE : JobClass.BATCH;
        Lane lane = lowest(c);
        return lane == null ? Optional.empty() : Optional.of(lane.of(c).peekFirst());
    }

    /**
     * Every queued job in predicted service order, as {@link #position} counts: interactive
     * before batch; within a class, by the lane's counter at the job (the counter now plus
     * what its lane has ahead of it), ties to the older lane. One pass and a sort.
     */
    public List<Job> inServiceOrder() {
        List<Turn> turns = turns();
        List<Job> order = new ArrayList<>(turns.size());
        for (Turn t : turns) order.add(t.job());
        return order;
    }

    /** A job in predicted service order, and the counter at which its turn comes. */
    public record Turn(Job job, long tag) {
    }

    /** Every queued job in predicted service order with the counter at which its turn comes (see {@link #inServiceOrder}). */
    public List<Turn> turns() {
        record Tagged(Job job, long tag, int lane) {
        }
        List<Tagged> all = new ArrayList<>(queued.size());
        int age = 0;
        for (Lane lane : lanes.values()) {
            long tag = lane.served;
            for (Job j : lane.interactive) {
                tag = turnOf(tag, j);
                all.add(new Tagged(j, tag, age));
                tag += cost(j);
            }
            for (Job j : lane.batch) {
                tag = turnOf(tag, j);
                all.add(new Tagged(j, tag, age));
                tag += cost(j);
            }
            age++;
        }
        all.sort(Comparator.comparing((Tagged t) -> t.job().jobClass())
                .thenComparingLong(Tagged::tag).thenComparingInt(Tagged::lane));
        List<Turn> order = new ArrayList<>(all.size());
        for (Tagged t : all) order.add(new Turn(t.job(), t.tag()));
        return order;
    }

    /**
     * The counter at which {@code candidate} would be served were it enqueued now: its lane's
     * start plus everything its lane has ahead of it, in counter units.
     */
    public long tagOf(Job candidate) {
        Lane own = lanes.get(candidate.tenant());
        long tag = startOf(own);
        if (own != null) {
            if (candidate.jobClass() == JobClass.BATCH) for (Job j : own.interactive) tag = turnOf(tag, j) + cost(j);
            for (Job j : own.of(candidate.jobClass())) tag = turnOf(tag, j) + cost(j);
        }
        return tag;
    }

    /**
     * The counter at which {@code tenant}'s next call would start behind what it has queued:
     * where a call it sent now would start, after its queued ones.
     */
    public long tailTagOf(String tenant) {
        Lane lane = lanes.get(tenant);
        long tag = startOf(lane);
        if (lane == null) return tag;
        for (Job j : lane.interactive) tag = turnOf(tag, j) + cost(j);
        for (Job j : lane.batch) tag = turnOf(tag, j) + cost(j);
        return tag;
    }

    /** Tokens {@code tenant} has queued. */
    public long queuedTokens(String tenant) {
        Lane lane = lanes.get(tenant);
        if (lane == null) return 0;
        long sum = 0;
        for (Job j : lane.interactive) sum += j.tokens();
        for (Job j : lane.batch) sum += j.tokens();
        return sum;
    }

    /** Calls {@code tenant} has queued. */
    public int queuedJobs(String tenant) {
        Lane lane = lanes.get(tenant);
        return lane == null ? 0 : lane.size();
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
        dropDrained();
        return Optional.of(job);
    }

    /** Takes every job whose deadline has passed at {@code nowMs} off the queue and returns them. */
    public List<Job> expire(long nowMs) {
        List<Job> expired = new ArrayList<>();
        for (Lane lane : lanes.values()) {
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
        if (!expired.isEmpty()) dropDrained();
        return expired;
    }

    /**
     * Corrects a tenant's counter once a call's real usage is known ({@code actual - estimate}),
     * so fairness is in tokens used, not tokens guessed. Ignored if the lane is gone.
     */
    public void reconcile(String tenant, long deltaTokens) {
        Lane lane = lanes.get(tenant);
        if (lane != null) {
            lane.served += deltaTokens * lane.priority;
            lane.unshared += deltaTokens * lane.priority;
        }
    }

    // Sharing across replicas (issue 15, item 5): the dispatcher reports, rebases and sets the hold from LaneShare.

    /** From now on the service of each lane is tallied for {@link #takeReports}. */
    public void shareWithOtherReplicas() {
        sharing = true;
    }

    /**
     * What to report to the other replicas now: every waiting lane, and every lane served (or
     * corrected) since the last report, with that service; the tally starts again from zero.
     */
    public List<LaneShare.Report> takeReports() {
        List<LaneShare.Report> out = new ArrayList<>();
        for (Map.Entry<String, Lane> e : lanes.entrySet()) {
            Lane lane = e.getValue();
            long gone = unsharedGone.getOrDefault(e.getKey(), 0L);
            if (lane.waiting() || lane.unshared != 0 || gone != 0) {
                out.add(new LaneShare.Report(e.getKey(), LaneShare.clamp(lane.unshared + gone), lane.waiting()));
            }
            lane.unshared = 0;
        }
        unsharedGone.forEach((tenant, served) -> {
            if (!lanes.containsKey(tenant) && served != 0) out.add(new LaneShare.Report(tenant, served, false));
        });
        unsharedGone.clear();
        return out;
    }

    /** A report that never reached the others: its service is reported again next time. */
    public void restore(List<LaneShare.Report> reports) {
        for (LaneShare.Report r : reports) {
            Lane lane = lanes.get(r.tenant());
            if (lane != null) lane.unshared = LaneShare.clamp(lane.unshared + r.served());
            else if (sharing) unsharedGone.merge(r.tenant(), r.served(), (a, b) -> LaneShare.clamp(a + b));
        }
    }

    /**
     * Sets each listed tenant's counter to the fleet's (plus what it was served here since the
     * report that counter answers), so lanes are ordered, here and against other replicas, by
     * what their tenants were served on every replica.
     */
    public void rebase(Map<String, Long> counters) {
        counters.forEach((tenant, counter) -> {
            Lane lane = lanes.get(tenant);
            if (lane != null) lane.served = LaneShare.clamp(counter + lane.unshared);
        });
    }

    /** Lanes whose counter is above {@code counter} wait ({@link HoldBack#aboveAt}); {@code Long.MAX_VALUE}: none. */
    public void holdAbove(long counter) {
        holdAbove = counter;
    }

    /** How far below the lowest waiting counter a lane that (re)joins may start (see the class comment). */
    public long credit() {
        return credit;
    }

    /** The work ahead of a queued job in service order; empty if it is not queued. */
    public Optional<WorkAhead> ahead(String jobId) {
        Job job = queued.get(jobId);
        return job == null ? Optional.empty() : Optional.of(ahead(job, true));
    }

    /** 1-based place of a queued job in the predicted service order. */
    public OptionalInt position(String jobId) {
        return ahead(jobId).map(a -> OptionalInt.of(a.position())).orElse(OptionalInt.empty());
    }

    /** The work that would be ahead of {@code candidate} were it enqueued now (for the door). */
    public WorkAhead aheadOf(Job candidate) {
        return ahead(candidate, false);
    }

    /**
     * When the queue is full, the job that makes room for {@code candidate}: the last, in
     * service order, of the longest lane (longest-queue drop), if the candidate's tenant holds
     * at least two jobs fewer, so that after the swap it holds no more than the lane it took
     * the place from. The bound on memory stays; the place in it is shared by tenant: a tenant
     * with nothing in line is not refused because others filled the queue, the one holding
     * most of it is. Empty when the queue has room, or the candidate's lane is (about) the
     * longest. Ties go to the lane furthest ahead in service (highest counter), then the newer.
     */
    public Optional<Job> victimFor(Job candidate) {
        if (!isFull()) return Optional.empty();
        Lane own = lanes.get(candidate.tenant());
        int ownSize = own == null ? 0 : own.size();
        Lane longest = null;
        for (Lane lane : lanes.values()) {
            if (lane == own || !lane.waiting()) continue;
            if (longest == null || lane.size() > longest.size()
                    || (lane.size() == longest.size() && lane.served >= longest.served)) longest = lane;
        }
        if (longest == null || ownSize + 1 >= longest.size()) return Optional.empty();
        return Optional.of(longest.batch.isEmpty() ? longest.interactive.peekLast() : longest.batch.peekLast());
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

    /** Tenants with work waiting. */
    public int lanesWaiting() {
        int n = 0;
        for (Lane lane : lanes.values()) if (lane.waiting()) n++;
        return n;
    }

    private static long cost(Job job) {
        return job.tokens() * job.priority();
    }

    /** The counter at which {@code job} is served, its lane having reached {@code laneTag} before it. */
    private long turnOf(long laneTag, Job job) {
        Long at = turnAtLeast.get(job.id());
        return at == null ? laneTag : Math.max(laneTag, at);
    }

    private void forget(Job job) {
        turnAtLeast.remove(job.id());
        queued.remove(job.id());
        if (job.jobClass() == JobClass.INTERACTIVE) interactive--;
    }

    /** The waiting lane of class {@code c} with the lowest counter, not held back; ties go to the older lane. */
    private Lane lowest(JobClass c) {
        Lane best = null;
        long bestTurn = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            if (lane.served > holdAbove || lane.of(c).isEmpty()) continue;
            long turn = turnOf(lane.served, lane.of(c).peekFirst());
            if (best == null || turn < bestTurn) {
                best = lane;
                bestTurn = turn;
            }
        }
        return best;
    }

    /**
     * The counter a lane starts its wait at: a waiting lane's own; a drained or new one's is
     * lifted to the lowest waiting counter less the credit (never lowered). The floor is
     * monotone, so credit does not compound as one newcomer after another starts below it.
     */
    private long startOf(Lane own) {
        if (own != null && own.waiting()) return own.served;
        long from = level() - credit;
        return own == null ? from : Math.max(own.served, from);
    }

    /** The lowest waiting counter, or the last one seen while nothing waits (the floor, advanced). */
    private long level() {
        OptionalLong min = lowestWaiting();
        if (min.isPresent() && min.getAsLong() > floor) floor = min.getAsLong();
        return floor;
    }

    private OptionalLong lowestWaiting() {
        long min = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) if (lane.waiting()) min = Math.min(min, lane.served);
        return min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min);
    }

    /**
     * A drained lane is kept only while its counter is above where it would start again (the
     * floor less the credit): dropping it then changes nothing. Memory follows the queue and
     * the tenants served within the credit of the floor.
     */
    private void dropDrained() {
        long from = level() - credit;
        lanes.entrySet().removeIf(e -> {
            Lane lane = e.getValue();
            if (lane.waiting() || lane.served > from) return false;
            if (sharing && lane.unshared != 0) unsharedGone.merge(e.getKey(), lane.unshared, (a, b) -> LaneShare.clamp(a + b));
            return true;
        });
    }

    /**
     * Simulates the counters forward: a job of lane M goes before the target while M's counter
     * at that job is below the target's (or equal, for lanes older than the target's, which
     * win ties). A batch target also has every interactive job ahead of it.
     */
    private WorkAhead ahead(Job target, boolean queuedNow) {
        JobClass c = target.jobClass();
        Lane own = lanes.get(target.tenant());
        long finish = startOf(own); // the counter at the target's turn
        int jobs = 0;
        long tokens = 0;
        if (own != null) {
            if (c == JobClass.BATCH) {
                for (Job j : own.interactive) {
                    jobs++;
                    tokens += j.tokens();
                    finish = turnOf(finish, j) + cost(j);
                }
            }
            for (Job j : own.of(c)) {
                if (queuedNow && j.id().equals(target.id())) break;
                jobs++;
                tokens += j.tokens();
                finish = turnOf(finish, j) + cost(j);
            }
        }
        if (queuedNow) finish = turnOf(finish, target);
        boolean older = true;
        for (Lane lane : lanes.values()) {
            if (lane == own) {
                older = false;
                continue;
            }
            long tag = lane.served;
            if (c == JobClass.BATCH) {
                for (Job j : lane.interactive) {
                    jobs++;
                    tokens += j.tokens();
                    tag = turnOf(tag, j) + cost(j);
                }
            }
            for (Job j : lane.of(c)) {
                tag = turnOf(tag, j);
                if (tag > finish || (tag == finish && !older)) break;
                jobs++;
                tokens += j.tokens();
                tag += cost(j);
            }
        }
        return new WorkAhead(jobs, tokens);
    }
}
