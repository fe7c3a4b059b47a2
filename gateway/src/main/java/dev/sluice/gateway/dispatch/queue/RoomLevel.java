package dev.sluice.gateway.dispatch.queue;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * How far in counter order the room free now reaches when every lane waiting in the fleet takes
 * its turns from it: water-filling, the lowest lanes first, each lane's next jobs at its mean job
 * size. Every lane whose counter is at or below the level can go now without taking what a lane
 * elsewhere is owed: the room holds its share too. The pure decision, time-free.
 *
 * <p>Why: the fleet's hold ({@link HoldBack}) lets a lane run at most a slack ahead of the lowest
 * lane waiting on another replica, and learns that lane's progress only at the next share (a fifth
 * of a second). When the room is there for every lane's next turns, as at a burst's start, that
 * made both replicas hand out a cold provider's 200 slots over 1.5 s, a few pages per lane per
 * share, while the door had told the first pages they would start at once.
 */
public final class RoomLevel {
    /** Every lane's whole queue fits the room: nobody need wait for anyone. */
    public static final long ALL = Long.MAX_VALUE;
    /** The room reaches no lane's next job (or nothing waits): the hold stands as it is. */
    public static final long NONE = Long.MIN_VALUE;

    private RoomLevel() {}

    /**
     * Whether {@code elsewhere} says what the other replicas' lanes want and where they stand: some
     * demand queued, and each queued part's head known (a replica of an earlier version does not say it).
     */
    public static boolean knows(Collection<LaneShare.Demand> elsewhere) {
        boolean queued = false;
        for (LaneShare.Demand d : elsewhere) {
            if (d.queuedTokens() <= 0) continue;
            if (d.head() == LaneShare.Demand.UNKNOWN_HEAD) return false;
            queued = true;
        }
        return queued;
    }

    /** {@link #of(Collection, long, long)} over the lanes here and elsewhere, a tenant's parts summed. */
    public static long of(
            Collection<LaneShare.Demand> here,
            Collection<LaneShare.Demand> elsewhere,
            long roomTokens,
            long roomCalls) {
        Map<String, LaneShare.Demand> fleet = new HashMap<>();
        for (LaneShare.Demand d : elsewhere) fleet.merge(d.tenant(), d, LaneShare.Demand::plus);
        for (LaneShare.Demand d : here) fleet.merge(d.tenant(), d, LaneShare.Demand::plus);
        return of(fleet.values(), roomTokens, roomCalls);
    }

    /**
     * The highest counter up to which each lane in {@code lanes} (one per tenant, the fleet's; a
     * lane's {@link LaneShare.Demand#head} is its counter before what it has queued) may go, its
     * jobs taking {@code roomTokens} tokens and {@code roomCalls} calls at most in all; a lane at
     * or below it sends its next job. {@link #ALL} when every queued job fits; {@link #NONE} when
     * not even the lowest lane's next one does.
     */
    public static long of(Collection<LaneShare.Demand> lanes, long roomTokens, long roomCalls) {
        if (roomTokens <= 0 || roomCalls <= 0) return NONE;
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        boolean any = false;
        for (LaneShare.Demand d : lanes) {
            if (d.queuedTokens() <= 0 || d.head() == LaneShare.Demand.UNKNOWN_HEAD) continue;
            any = true;
            lo = Math.min(lo, d.head());
            hi = Math.max(hi, sat(d.head(), mul(d.queuedTokens(), d.priority())));
        }
        if (!any) return NONE;
        if (fits(lanes, hi, roomTokens, roomCalls)) return ALL;
        if (!fits(lanes, lo, roomTokens, roomCalls)) return NONE;
        // Largest level that fits: fits(lo), not fits(hi); what the lanes take grows with the level.
        while (hi - lo > 1 || hi - lo < 0) {
            long mid = lo + ((hi - lo) >>> 1);
            if (fits(lanes, mid, roomTokens, roomCalls)) lo = mid;
            else hi = mid;
        }
        return lo;
    }

    /** Whether what every lane sends up to counter {@code level} takes no more than the room. */
    private static boolean fits(Collection<LaneShare.Demand> lanes, long level, long roomTokens, long roomCalls) {
        long tokens = 0;
        long calls = 0;
        for (LaneShare.Demand d : lanes) {
            if (d.queuedTokens() <= 0 || d.head() == LaneShare.Demand.UNKNOWN_HEAD || level < d.head()) continue;
            long jobs = Math.max(1, d.queuedRequests()); // a replica that does not say: one call of it all
            long perJob = Math.max(1, d.queuedTokens() / jobs);
            long step = mul(perJob, d.priority());
            long above = level - d.head();
            if (above < 0) above = Long.MAX_VALUE; // overflowed: the level is far above
            // A lane at or below the level sends its next job, so one job at its head and one per step after.
            long sent = Math.min(jobs, 1 + above / step);
            calls += sent;
            tokens = sat(tokens, sent == jobs ? d.queuedTokens() : sent * perJob);
            if (tokens > roomTokens || calls > roomCalls) return false;
        }
        return true;
    }

    /** a × b for positive a and b, saturating. */
    private static long mul(long a, long b) {
        return Math.multiplyHigh(a, b) != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
    }

    private static long sat(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : s;
    }
}
