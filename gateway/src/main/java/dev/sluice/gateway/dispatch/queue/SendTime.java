package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.queue.Door.Capacity;
import dev.sluice.gateway.dispatch.queue.Door.Freed;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * When a job would be sent, from the budget as the door sees it ({@link Capacity}): everything
 * the budget holds now, everything ahead of the job in service order and the job itself must
 * pass through the budget. In the rolling windows (tokens, requests) what exceeds the standing
 * room goes when enough of the window has left it, and the window's own schedule says when
 * that is ({@link Capacity#leaving}): a window filled evenly frees a little every second, so N
 * pages of 800 tokens ahead of a saturated 300,000-token minute wait about
 * {@code (N + 1) × 800 / 300,000} minutes; a window filled by one burst frees nothing until
 * that burst leaves it, a whole minute later, so the page after the burst waits a minute, not
 * 160 ms. Beyond what the window holds now, what is sent as it frees stays a window in turn.
 * Calls drain at {@code inFlightLimit / meanCallMs} per ms (Little's law). The wait is the
 * slowest of the three, and at least the rest of a pause. Without a schedule (unknown), the
 * windows are assumed to free as fast as they fill.
 */
final class SendTime {
    private SendTime() {}

    /** Milliseconds until a job of {@code tokens} with {@code ahead} in front of it is sent. */
    static long estimateWaitMs(long tokens, WorkAhead ahead, Capacity c) {
        return estimateWaitMs(tokens, ahead, c, Schedules.of(c));
    }

    /** The same, with the capacity's schedules indexed once for many estimates against one capacity. */
    static long estimateWaitMs(long tokens, WorkAhead ahead, Capacity c, Schedules s) {
        long calls = ahead.jobs() + 1L;
        long tokenWait = windowWait(
                LaneShare.clamp(ahead.tokens() + tokens), c.usedTokens(), c.tokensPerMinute(), s.tokens(), c.cycleMs());
        long requestWait = windowWait(calls, c.usedRequests(), c.requestsPerMinute(), s.requests(), c.cycleMs());
        long slotWait = slotWait(calls, c, s.slots());
        return Math.max(c.pausedForMs(), Math.max(tokenWait, Math.max(requestWait, slotWait)));
    }

    /**
     * When the {@code calls}-th call from now has a slot: the later of two readings. On average,
     * slots free at {@code inFlightLimit / meanCallMs} (Little's law). The calls in flight end as
     * {@code slots} says, and each call sent holds its slot a mean call in turn (a rolling window of
     * {@code meanCallMs}, {@link #windowWait}): a burst's calls, sent together, free their slots
     * together a call later, not evenly over it. The schedule alone would be hopeful where calls
     * differ in length (one past the mean may have long to go), so it only ever adds to the average.
     */
    private static long slotWait(long calls, Capacity c, Schedule slots) {
        long even = drain(c.inFlight() + calls - c.inFlightLimit(), c.meanCallMs(), c.inFlightLimit());
        if (slots == null || c.meanCallMs() == 0) return even;
        return Math.max(even, windowWait(calls, c.inFlight(), c.inFlightLimit(), slots, c.meanCallMs()));
    }

    /**
     * The soonest {@code job} could be sent were it first in line: when the rolling windows
     * have room for it (batch: above the interactive reserve) and any pause is over. Slots free
     * as calls end and are not counted, so this is a lower bound for every job behind it.
     */
    static long earliestSendMs(Job job, Capacity capacity, double interactiveFloor) {
        Capacity c = capacity.forClass(job.jobClass(), interactiveFloor);
        long tokens =
                windowWait(job.tokens(), c.usedTokens(), c.tokensPerMinute(), c.leaving(), Freed::tokens, c.cycleMs());
        long requests =
                windowWait(1, c.usedRequests(), c.requestsPerMinute(), c.leaving(), Freed::requests, c.cycleMs());
        return Math.max(c.pausedForMs(), Math.max(tokens, requests));
    }

    /**
     * When {@code need} more fit a rolling window of {@code cap} that holds {@code used}, which
     * leaves it as {@code leaving} says. What exceeds the room now must wait for the window's
     * content to leave, in its order. Past that, what is sent now and as the window frees stays
     * in the window for a cycle ({@link Door#CYCLE_MS}) in turn: each later cycle frees
     * {@code cap}, in the same order (the room taken now first, then the current content's
     * schedule). Without a schedule, the window frees at {@code cap} per minute from now.
     */
    static long windowWait(
            long need, long used, long cap, List<Freed> leaving, ToLongFunction<Freed> amount, long cycleMs) {
        return windowWait(need, used, cap, Schedule.of(leaving, amount), cycleMs);
    }

    private static long windowWait(long need, long used, long cap, Schedule leaving, long cycleMs) {
        long excess = used + need - cap;
        if (excess <= 0) return 0;
        if (leaving == null) return drain(excess, 60_000, cap);
        if (excess <= leaving.total()) return Math.max(1, leaving.whenReached(excess));
        long rest = excess - leaving.total(); // beyond what the window holds now
        long cycles = (rest - 1) / cap; // whole cycles of cap each, after the first
        long last = rest - cycles * cap; // 1..cap, freed in the cycle after those
        long shift = (cycles + 1) * cycleMs;
        long room = Math.max(0, cap - used); // taken now: leaves first in every later cycle
        if (last <= room) return shift;
        last -= room;
        if (last <= leaving.total()) return shift + leaving.whenReached(last);
        return shift + cycleMs; // the schedule did not sum to the used count: a cycle more at most
    }

    /**
     * One amount of a window's leaving schedule, summed as it leaves: when the first {@code x}
     * have left is a binary search, so the promises check estimates every queued job against
     * one capacity in O(n log m), not O(n × m) (a 600-page burst against a window of 300 calls
     * held the dispatch loop for seconds, and the door's refusals with it).
     */
    record Schedule(long[] atMs, long[] summed) {
        static Schedule of(List<Freed> leaving, ToLongFunction<Freed> amount) {
            if (leaving == null) return null;
            long[] at = new long[leaving.size()];
            long[] sum = new long[leaving.size()];
            long total = 0;
            for (int i = 0; i < at.length; i++) {
                Freed f = leaving.get(i);
                total = LaneShare.clamp(total + Math.max(0, amount.applyAsLong(f)));
                at[i] = f.inMs();
                sum[i] = total;
            }
            return new Schedule(at, sum);
        }

        long total() {
            return summed.length == 0 ? 0 : summed[summed.length - 1];
        }

        /** When at least {@code x} (1..total) has left: the first entry whose running sum reaches it. */
        long whenReached(long x) {
            int lo = 0;
            int hi = summed.length - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (summed[mid] >= x) hi = mid;
                else lo = mid + 1;
            }
            return atMs[lo];
        }
    }

    /**
     * A capacity's three schedules, indexed once: the tokens and requests leaving its windows
     * ({@link Capacity#leaving}) and its calls in flight ending ({@link #slots}).
     */
    record Schedules(Schedule tokens, Schedule requests, Schedule slots) {
        static Schedules of(Capacity c) {
            return new Schedules(
                    Schedule.of(c.leaving(), Freed::tokens),
                    Schedule.of(c.leaving(), Freed::requests),
                    SendTime.slots(c));
        }
    }

    /**
     * The most calls in flight read one by one ({@link #slots}): past it (a limit of millions in
     * flight), the slots drain evenly rather than index a schedule per estimate.
     */
    static final int MOST_SCHEDULED_SLOTS = 65_536;

    /**
     * When the capacity's calls in flight end, one slot each: this replica's as {@link Capacity#ending}
     * says, the rest (other replicas', and any its view counts that this replica does not know)
     * evenly over a mean call, as Little's law has them. Null when nothing is known of when they
     * end: the slots then drain evenly ({@link #slotWait}).
     */
    static Schedule slots(Capacity c) {
        List<Long> known = c.ending();
        int inFlight = c.inFlight();
        if (known == null || c.meanCallMs() == 0 || inFlight > MOST_SCHEDULED_SLOTS) return null;
        int mine = Math.min(known.size(), inFlight);
        int others = inFlight - mine;
        long[] at = new long[inFlight];
        long[] summed = new long[inFlight];
        int i = 0; // next of mine, soonest first
        int j = 1; // next of the others: the j-th of them ends j / others of a mean call from now
        for (int n = 0; n < inFlight; n++) {
            long other = j <= others ? (long) Math.ceil((double) j * c.meanCallMs() / others) : Long.MAX_VALUE;
            long own = i < mine ? Math.max(0, known.get(i)) : Long.MAX_VALUE;
            if (own <= other) {
                at[n] = own;
                i++;
            } else {
                at[n] = other;
                j++;
            }
            summed[n] = n + 1L;
        }
        return new Schedule(at, summed);
    }

    /** ceil(excess × periodMs / perPeriod), 0 when nothing exceeds. */
    private static long drain(long excess, long periodMs, long perPeriod) {
        if (excess <= 0 || periodMs == 0) return 0;
        return (long) Math.ceil((double) excess * periodMs / perPeriod);
    }

    /** How soon one job's worth of the queue is sent: when a full queue has a place again. */
    static long drainOneMs(WorkAhead ahead, Capacity c) {
        long meanTokens = ahead.jobs() == 0 ? 0 : ahead.tokens() / ahead.jobs();
        return Math.max(
                1,
                Math.max(
                        drain(meanTokens, 60_000, c.tokensPerMinute()),
                        Math.max(
                                drain(1, 60_000, c.requestsPerMinute()), drain(1, c.meanCallMs(), c.inFlightLimit()))));
    }
}
