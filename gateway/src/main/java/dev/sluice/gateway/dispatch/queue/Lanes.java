package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BiPredicate;
import java.util.function.ToLongFunction;

/**
 * The fair queue's lanes, one per tenant in the order they joined, and the arithmetic of their
 * virtual token counters: where a lane starts its wait, which lane is lowest, at which counter
 * a job's turn comes, when a drained lane may be forgotten.
 *
 * <p><b>Weights.</b> A tenant's weight is 1 / its tier's priority: while both wait, a
 * priority-1 tenant is served twice the tokens of a priority-2 one and three times those of a
 * priority-3 one. Counters grow by {@code tokens × priority}, in exact integers. Sharing is
 * weighted, never strict, so no tier starves another.
 *
 * <p><b>Credit, bounded.</b> With no credit at all, whoever asks first when the provider's
 * minute turns takes it: a tenant whose book went out while the others were not yet in line
 * starts level with them when they come, its head start kept for good, and the door refuses
 * the late ones (six equal tenants served {@code [203, 204, 150, 149, 150, 145]} pages). So a
 * lane that (re)joins starts up to {@code credit} below the lowest counter waiting in the class served (never below
 * its own remembered counter, and counted from a monotone floor so that newcomers do not
 * compound it), and a drained lane is remembered while its counter is above that start. The
 * dispatcher gives half the provider's minute ({@link FairQueue#forBudget}).
 *
 * <p><b>Promises.</b> A job the door placed behind promises its fair turn would break is served
 * no earlier than at a given counter ({@link #promise}); its lane is charged from its own
 * counter when it goes, so the wait past its turn stays owed to it.
 */
final class Lanes {
    /** How far (in counter units) a lane that (re)joins may start below the others: the credit idle time banks. */
    private final long credit;
    /** The lowest waiting counter seen so far (virtual time): where credit is counted from, also while nothing waits. */
    private long floor;
    /**
     * The floor's rises within the last {@link Door#LONGEST_BURST_MS}, oldest first: when each came and the
     * floor before it. A lane that joins starts from the floor as it was that long ago
     * ({@link #joinLevel}).
     */
    private final ArrayDeque<long[]> rises = new ArrayDeque<>();
    /** The latest time the queue was told (its jobs' arrivals, the dispatcher's expiry sweeps). */
    private long nowMs = Long.MIN_VALUE;
    /** Waiting lanes, and drained lanes whose counter is still ahead of every waiting one. */
    private final LinkedHashMap<String, Lane> lanes = new LinkedHashMap<>();
    /** Jobs the door placed behind promises made earlier: the lowest counter at which each may be served. */
    private final Map<String, Long> turnAtLeast = new HashMap<>();
    /** When the door told each job it would start (absent: at once, from its arrival). */
    private final Map<String, Long> startsBy = new HashMap<>();

    static final class Lane {
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

        /** Charges (or, negative, refunds) this lane {@code counter} units of service. */
        void charge(long counter) {
            served += counter;
            unshared += counter;
        }
    }

    Lanes(long credit) {
        this.credit = credit;
    }

    long credit() {
        return credit;
    }

    /** The lane of {@code tenant}, or null when it has none. */
    Lane get(String tenant) {
        return lanes.get(tenant);
    }

    /** Every lane, oldest first (ties in service go to the older lane). */
    Map<String, Lane> all() {
        return lanes;
    }

    /** The latest time the queue was told. */
    long now() {
        return nowMs;
    }

    /** Time goes on: never back. */
    void advanceTo(long ms) {
        if (ms > nowMs) nowMs = ms;
    }

    /** The lane {@code job} joins: its tenant's, started at {@link #startOf} when it was not waiting. */
    Lane join(Job job) {
        advanceTo(job.enqueuedAtMs());
        Lane lane = lanes.get(job.tenant());
        if (lane == null) {
            lane = new Lane(startOf(null), job.priority());
            lanes.put(job.tenant(), lane);
        } else if (!lane.waiting()) {
            lane.served = startOf(lane);
        }
        lane.priority = job.priority();
        return lane;
    }

    /** {@code jobId} is served no earlier than at {@code counter}. */
    void promise(String jobId, long counter) {
        turnAtLeast.put(jobId, counter);
    }

    /** The door told {@code jobId} it would start by {@code atMs}. */
    void promiseStart(String jobId, long atMs) {
        startsBy.put(jobId, atMs);
    }

    /** When the door told {@code job} it would start: its arrival when it gave no later word. */
    long promisedStart(Job job) {
        Long at = startsBy.get(job.id());
        return at == null ? job.enqueuedAtMs() : at;
    }

    /** {@code jobId} has left the queue: its promised turn and start go with it. */
    void forget(String jobId) {
        turnAtLeast.remove(jobId);
        startsBy.remove(jobId);
    }

    static long cost(Job job) {
        return job.tokens() * job.priority();
    }

    /** The counter at which {@code job} is served, its lane having reached {@code laneTag} before it. */
    long turnOf(long laneTag, Job job) {
        Long at = turnAtLeast.get(job.id());
        return at == null ? laneTag : Math.max(laneTag, at);
    }

    /**
     * The waiting lane of class {@code c} with the lowest counter, lanes above {@code holdAbove}
     * held back unless their next job is {@link #overdue}; ties go to the older lane.
     */
    Lane lowest(JobClass c, long holdAbove) {
        return lowest(c, (lane, head) -> lane.served <= holdAbove || overdue(head));
    }

    /** {@link #lowest(JobClass, long)}, lanes that {@code held} says wait held back too (unless overdue). */
    Lane lowest(JobClass c, long holdAbove, BiPredicate<Lane, Job> held) {
        return lowest(c, (lane, head) -> (lane.served <= holdAbove && !held.test(lane, head)) || overdue(head));
    }

    /** Of the lanes whose next job of class {@code c} is {@link #overdue}, the one whose turn comes first; null: none. */
    Lane lowestOverdue(JobClass c) {
        return lowest(c, (lane, head) -> overdue(head));
    }

    /** Of the lanes with a job of class {@code c} that {@code may} go, the one whose head's turn comes first. */
    private Lane lowest(JobClass c, BiPredicate<Lane, Job> may) {
        Lane best = null;
        long bestTurn = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            Job head = lane.of(c).peekFirst();
            if (head == null || !may.test(lane, head)) continue;
            long turn = turnOf(lane.served, head);
            if (best == null || turn < bestTurn) {
                best = lane;
                bestTurn = turn;
            }
        }
        return best;
    }

    /**
     * Whether {@code job} is past the start its door promised less the margin the door kept
     * ({@link Door#marginMs}): it waits no longer for other replicas' lanes (the hold-back is
     * fairness within a slack; the promise is a word given). Only the door's promises are at
     * stake: lanes here are ordered so that they keep them ({@link PromiseCheck}), while the fleet's
     * hold cannot see them.
     */
    boolean overdue(Job job) {
        return nowMs != Long.MIN_VALUE && nowMs >= job.deadlineMs() - Door.marginMs(job.maxWaitMs());
    }

    /**
     * The counter a lane starts its wait at: a waiting lane's own; a drained or new one's is
     * lifted to the lowest waiting counter less the credit (never lowered). The floor is
     * monotone, so credit does not compound as one newcomer after another starts below it.
     */
    long startOf(Lane own) {
        if (own != null && own.waiting()) return own.served;
        long from = joinLevel() - credit;
        return own == null ? from : Math.max(own.served, from);
    }

    /**
     * Where each tenant with nothing waiting would start were it to join now ({@link #startOf}),
     * the floor read once for all of them.
     */
    ToLongFunction<String> startsIfJoining() {
        long[] from = new long[1];
        boolean[] read = new boolean[1];
        return tenant -> {
            if (!read[0]) { // read when first asked, as startOf reads it: reading the floor may advance it
                from[0] = joinLevel() - credit;
                read[0] = true;
            }
            Lane own = lanes.get(tenant);
            return own == null ? from[0] : Math.max(own.served, from[0]);
        };
    }

    /** The lowest counter of the class served now, or the last one seen while nothing waits (the floor, advanced). */
    private long level() {
        OptionalLong min = lowestWaiting();
        if (min.isPresent() && min.getAsLong() > floor) {
            rises.addLast(new long[] {nowMs, floor});
            floor = min.getAsLong();
        }
        return floor;
    }

    /**
     * The floor a lane joining now starts from: as it was {@link Door#LONGEST_BURST_MS} ago. A
     * burst's calls reach the queue one by one (over up to two seconds through a cold gateway's
     * edge), and the first tenant's pages may all go out before the second tenant's first one
     * arrives (an empty budget sends at once). Starting the second from the floor those pages
     * raised would forgive the first its head start for good; starting it from the floor before
     * them puts both level, as if they had asked together.
     */
    private long joinLevel() {
        long level = level();
        long since = nowMs == Long.MIN_VALUE ? Long.MIN_VALUE : nowMs - Door.LONGEST_BURST_MS;
        while (!rises.isEmpty() && rises.peekFirst()[0] <= since) rises.pollFirst();
        return rises.isEmpty() ? level : rises.peekFirst()[1];
    }

    /**
     * The lowest counter among the lanes of the class served now: interactive while any
     * interactive job waits ({@link FairQueue#next}; a batch job past its promised start that goes
     * ahead is one job, not the class served), else batch. A lane with only batch work
     * waits while interactive is served, its counter standing still: counted here, it would hold
     * the floor back, and a lane back from idle would start as far below the served lanes as it
     * last left them rather than at most the credit below (seed 91 of the simulation).
     */
    OptionalLong lowestWaiting() {
        long interactive = Long.MAX_VALUE;
        long any = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            if (!lane.interactive.isEmpty()) interactive = Math.min(interactive, lane.served);
            if (lane.waiting()) any = Math.min(any, lane.served);
        }
        long min = interactive != Long.MAX_VALUE ? interactive : any;
        return min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min);
    }

    /**
     * A drained lane is kept only while its counter is above where it would start again (the
     * floor less the credit): dropping it then changes nothing. Memory follows the queue and
     * the tenants served within the credit of the floor. {@code tally} keeps what a dropped
     * lane was served here and has not reported yet.
     */
    void dropDrained(ReplicaTally tally) {
        long from = joinLevel() - credit;
        lanes.entrySet().removeIf(e -> {
            Lane lane = e.getValue();
            if (lane.waiting() || lane.served > from) return false;
            tally.dropped(e.getKey(), lane);
            return true;
        });
    }
}
