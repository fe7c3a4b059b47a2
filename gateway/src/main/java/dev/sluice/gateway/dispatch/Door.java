package dev.sluice.gateway.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Backpressure at the door (seed 000, case 4): before a job is queued, estimate when it would
 * be sent, and answer busy at once if that is past what the caller will wait. Honest, not
 * optimistic: the queue protects the provider, it does not create capacity.
 *
 * <p>The estimate: everything the budget holds now, everything ahead of the job in service
 * order ({@link FairQueue#aheadOf}) and the job itself must pass through the budget. In the
 * rolling windows (tokens, requests) what exceeds the standing room goes when enough of the
 * window has left it, and the window's own schedule says when that is
 * ({@link Capacity#leaving}): a window filled evenly frees a little every second, so N pages
 * of 800 tokens ahead of a saturated 300,000-token minute wait about
 * {@code (N + 1) × 800 / 300,000} minutes; a window filled by one burst frees nothing until
 * that burst leaves it, a whole minute later, so the page after the burst waits a minute, not
 * 160 ms. Beyond what the window holds now, what is sent as it frees stays a window in turn.
 * Calls drain at {@code inFlightLimit / meanCallMs} per ms (Little's law, seed 002). The
 * wait is the slowest of the three, and at least the rest of a pause. Without a schedule
 * (unknown), the windows are assumed to free as fast as they fill. An estimate, not a
 * promise: later arrivals that are owed service (fair lanes) may still go first.
 *
 * <p>Pure; the queue it reads is single-threaded, so call it from the dispatcher.
 */
public final class Door {

    /**
     * The budget as the door sees it: rates (after headroom, and the adaptive in-flight limit),
     * what is used now, and how long calls take.
     */
    public record Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                           long usedTokens, long usedRequests, int inFlight, long pausedForMs, List<Freed> leaving) {
        public Capacity {
            if (tokensPerMinute < 1 || requestsPerMinute < 1 || inFlightLimit < 1) {
                throw new IllegalArgumentException("capacity rates must be at least 1");
            }
            if (meanCallMs < 0 || usedTokens < 0 || usedRequests < 0 || inFlight < 0 || pausedForMs < 0) {
                throw new IllegalArgumentException("capacity usage must not be negative");
            }
            leaving = leaving == null ? null : List.copyOf(leaving);
        }

        /** Without the window's schedule: the windows are assumed to free as fast as they fill. */
        public Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                        long usedTokens, long usedRequests, int inFlight, long pausedForMs) {
            this(tokensPerMinute, requestsPerMinute, inFlightLimit, meanCallMs, usedTokens, usedRequests, inFlight,
                    pausedForMs, null);
        }

        /** From a budget snapshot (its limits may carry the adaptive in-flight limit) and the measured mean call time. */
        public static Capacity of(BudgetSnapshot s, long meanCallMs) {
            BudgetLimits l = s.limits();
            List<Freed> leaving = null; // not read by the store: windowWait assumes an even drain
            if (s.leaving() != null) {
                leaving = new ArrayList<>(s.leaving().size());
                for (BudgetSnapshot.Leaving x : s.leaving()) {
                    leaving.add(new Freed(Math.max(0, x.atMs() - s.nowMs()), x.tokens(), x.requests()));
                }
            }
            return new Capacity(l.tokensPerMinute(), l.requestsPerMinute(), l.maxInFlight(), meanCallMs,
                    s.usedTokens(), s.usedRequests(), s.inFlight(), s.pausedForMs(), leaving);
        }

        /** The same budget, paused for {@code ms} (a failing provider's circuit). */
        public Capacity pausedFor(long ms) {
            return new Capacity(tokensPerMinute, requestsPerMinute, inFlightLimit, meanCallMs, usedTokens, usedRequests,
                    inFlight, Math.max(0, ms), leaving);
        }

        /** What batch may use: each limit less the interactive reserve (see {@link BudgetView#admits}). */
        public Capacity forBatch(double interactiveFloor) {
            return new Capacity(
                    Math.max(1, tokensPerMinute - BudgetView.reserve(tokensPerMinute, interactiveFloor)),
                    Math.max(1, requestsPerMinute - BudgetView.reserve(requestsPerMinute, interactiveFloor)),
                    (int) Math.max(1, inFlightLimit - BudgetView.reserve(inFlightLimit, interactiveFloor)),
                    meanCallMs, usedTokens, usedRequests, inFlight, pausedForMs, leaving);
        }
    }

    /** Usage that leaves the rolling window {@code inMs} from now. */
    public record Freed(long inMs, long tokens, long requests) {
    }

    /** Longest a charge stays in a budget's window: the minute and the slot it was made in. */
    static final long CYCLE_MS = ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS;

    private final FairQueue queue;

    public Door(FairQueue queue) {
        this.queue = queue;
    }

    /**
     * Whether to queue {@code job}, given the budget now and the longest the caller will wait
     * ({@code X-Sluice-Max-Wait}, default 60 s). Batch jobs are estimated against what batch
     * may use. A full queue says {@link DoorDecision.Verdict#QUEUE_FULL} only to a tenant
     * holding about the most of it; anyone else is accepted, and the caller makes room with
     * {@link FairQueue#victimFor}.
     */
    public DoorDecision admit(Job job, Capacity capacity, long maxWaitMs) {
        Capacity c = job.jobClass() == JobClass.BATCH ? capacity.forBatch(queue.interactiveFloor()) : capacity;
        WorkAhead ahead = queue.aheadOf(job);
        DoorDecision d = decide(job.tokens(), ahead, c, maxWaitMs);
        // A full queue refuses only a tenant that holds about the most of it; anyone else takes the place of the hog's last job.
        if (d.accepted() && queue.isFull() && queue.victimFor(job).isEmpty()) {
            return new DoorDecision(DoorDecision.Verdict.QUEUE_FULL, d.position(), d.estimatedWaitMs(), drainOneMs(ahead, c));
        }
        return d;
    }

    /** The decision from numbers alone: the job's tokens, the work ahead, the budget. */
    public static DoorDecision decide(long tokens, WorkAhead ahead, Capacity c, long maxWaitMs) {
        if (tokens > c.tokensPerMinute()) return new DoorDecision(DoorDecision.Verdict.TOO_LARGE, ahead.position(), -1, -1);
        long wait = estimateWaitMs(tokens, ahead, c);
        if (wait > maxWaitMs) {
            return new DoorDecision(DoorDecision.Verdict.BUSY, ahead.position(), wait, Math.max(1, wait - maxWaitMs));
        }
        return new DoorDecision(DoorDecision.Verdict.ACCEPT, ahead.position(), wait, 0);
    }

    /** Milliseconds until a job of {@code tokens} with {@code ahead} in front of it is sent. */
    public static long estimateWaitMs(long tokens, WorkAhead ahead, Capacity c) {
        long calls = ahead.jobs() + 1L;
        long tokenWait = windowWait(ahead.tokens() + tokens, c.usedTokens(), c.tokensPerMinute(), c.leaving(), Freed::tokens);
        long requestWait = windowWait(calls, c.usedRequests(), c.requestsPerMinute(), c.leaving(), Freed::requests);
        long slotWait = drain(c.inFlight() + calls - c.inFlightLimit(), c.meanCallMs(), c.inFlightLimit());
        return Math.max(c.pausedForMs(), Math.max(tokenWait, Math.max(requestWait, slotWait)));
    }

    /**
     * The soonest {@code job} could be sent were it first in line: when the rolling windows
     * have room for it (batch: above the interactive reserve) and any pause is over. Slots free
     * as calls end and are not counted, so this is a lower bound for every job behind it.
     */
    public static long earliestSendMs(Job job, Capacity capacity, double interactiveFloor) {
        Capacity c = job.jobClass() == JobClass.BATCH ? capacity.forBatch(interactiveFloor) : capacity;
        long tokens = windowWait(job.tokens(), c.usedTokens(), c.tokensPerMinute(), c.leaving(), Freed::tokens);
        long requests = windowWait(1, c.usedRequests(), c.requestsPerMinute(), c.leaving(), Freed::requests);
        return Math.max(c.pausedForMs(), Math.max(tokens, requests));
    }

    /**
     * When {@code need} more fit a rolling window of {@code cap} that holds {@code used}, which
     * leaves it as {@code leaving} says. What exceeds the room now must wait for the window's
     * content to leave, in its order. Past that, what is sent now and as the window frees stays
     * in the window for a cycle ({@link #CYCLE_MS}) in turn: each later cycle frees {@code cap},
     * in the same order (the room taken now first, then the current content's schedule).
     * Without a schedule, the window frees at {@code cap} per minute from now.
     */
    static long windowWait(long need, long used, long cap, List<Freed> leaving, ToLongFunction<Freed> amount) {
        long excess = used + need - cap;
        if (excess <= 0) return 0;
        if (leaving == null) return drain(excess, 60_000, cap);
        long inWindow = 0;
        for (Freed f : leaving) {
            inWindow += amount.applyAsLong(f);
            if (inWindow >= excess) return Math.max(1, f.inMs());
        }
        long rest = excess - inWindow;      // beyond what the window holds now
        long cycles = (rest - 1) / cap;     // whole cycles of cap each, after the first
        long last = rest - cycles * cap;    // 1..cap, freed in the cycle after those
        long shift = (cycles + 1) * CYCLE_MS;
        long room = Math.max(0, cap - used); // taken now: leaves first in every later cycle
        if (last <= room) return shift;
        last -= room;
        for (Freed f : leaving) {
            last -= amount.applyAsLong(f);
            if (last <= 0) return shift + f.inMs();
        }
        return shift + CYCLE_MS; // the schedule did not sum to the used count: a cycle more at most
    }

    /** ceil(excess × periodMs / perPeriod), 0 when nothing exceeds. */
    private static long drain(long excess, long periodMs, long perPeriod) {
        if (excess <= 0 || periodMs == 0) return 0;
        return (long) Math.ceil((double) excess * periodMs / perPeriod);
    }

    /** How soon one job's worth of the queue is sent: when a full queue has a place again. */
    private static long drainOneMs(WorkAhead ahead, Capacity c) {
        long meanTokens = ahead.jobs() == 0 ? 0 : ahead.tokens() / ahead.jobs();
        return Math.max(1, Math.max(drain(meanTokens, 60_000, c.tokensPerMinute()),
                Math.max(drain(1, 60_000, c.requestsPerMinute()), drain(1, c.meanCallMs(), c.inFlightLimit()))));
    }
}
