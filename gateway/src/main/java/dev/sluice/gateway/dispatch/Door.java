package dev.sluice.gateway.dispatch;

/**
 * Backpressure at the door (seed 000, case 4): before a job is queued, estimate when it would
 * be sent, and answer busy at once if that is past what the caller will wait. Honest, not
 * optimistic: the queue protects the provider, it does not create capacity.
 *
 * <p>The estimate: everything the budget holds now, everything ahead of the job in service
 * order ({@link FairQueue#aheadOf}) and the job itself must pass through the budget. What
 * exceeds the budget's standing room drains at the budget's rate, in each dimension:
 * tokens at tokens per minute, requests at requests per minute, and calls at
 * {@code inFlightLimit / meanCallMs} per ms (Little's law, seed 002). The wait is the slowest
 * of the three, and at least the rest of a pause. So a saturated budget with N pages of 800
 * tokens ahead at 300,000 tokens a minute says about {@code (N + 1) × 800 / 300,000} minutes,
 * and a fresh one says 0: its window takes the burst. Steady-state arithmetic, not a promise:
 * it assumes the window frees as fast as it fills.
 *
 * <p>Pure; the queue it reads is single-threaded, so call it from the dispatcher.
 */
public final class Door {

    /**
     * The budget as the door sees it: rates (after headroom, and the adaptive in-flight limit),
     * what is used now, and how long calls take.
     */
    public record Capacity(long tokensPerMinute, long requestsPerMinute, int inFlightLimit, long meanCallMs,
                           long usedTokens, long usedRequests, int inFlight, long pausedForMs) {
        public Capacity {
            if (tokensPerMinute < 1 || requestsPerMinute < 1 || inFlightLimit < 1) {
                throw new IllegalArgumentException("capacity rates must be at least 1");
            }
            if (meanCallMs < 0 || usedTokens < 0 || usedRequests < 0 || inFlight < 0 || pausedForMs < 0) {
                throw new IllegalArgumentException("capacity usage must not be negative");
            }
        }

        /** From a budget snapshot (its limits may carry the adaptive in-flight limit) and the measured mean call time. */
        public static Capacity of(BudgetSnapshot s, long meanCallMs) {
            BudgetLimits l = s.limits();
            return new Capacity(l.tokensPerMinute(), l.requestsPerMinute(), l.maxInFlight(), meanCallMs,
                    s.usedTokens(), s.usedRequests(), s.inFlight(), s.pausedForMs());
        }

        /** What batch may use: each limit less the interactive reserve (see {@link BudgetView#admits}). */
        public Capacity forBatch(double interactiveFloor) {
            return new Capacity(
                    Math.max(1, tokensPerMinute - BudgetView.reserve(tokensPerMinute, interactiveFloor)),
                    Math.max(1, requestsPerMinute - BudgetView.reserve(requestsPerMinute, interactiveFloor)),
                    (int) Math.max(1, inFlightLimit - BudgetView.reserve(inFlightLimit, interactiveFloor)),
                    meanCallMs, usedTokens, usedRequests, inFlight, pausedForMs);
        }
    }

    private final FairQueue queue;

    public Door(FairQueue queue) {
        this.queue = queue;
    }

    /**
     * Whether to queue {@code job}, given the budget now and the longest the caller will wait
     * ({@code X-Sluice-Max-Wait}, default 60 s). Batch jobs are estimated against what batch
     * may use.
     */
    public DoorDecision admit(Job job, Capacity capacity, long maxWaitMs) {
        Capacity c = job.jobClass() == JobClass.BATCH ? capacity.forBatch(queue.interactiveFloor()) : capacity;
        WorkAhead ahead = queue.aheadOf(job);
        DoorDecision d = decide(job.tokens(), ahead, c, maxWaitMs);
        if (d.accepted() && queue.isFull()) {
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
        long tokenWait = drain(c.usedTokens() + ahead.tokens() + tokens - c.tokensPerMinute(), 60_000, c.tokensPerMinute());
        long requestWait = drain(c.usedRequests() + calls - c.requestsPerMinute(), 60_000, c.requestsPerMinute());
        long slotWait = drain(c.inFlight() + calls - c.inFlightLimit(), c.meanCallMs(), c.inFlightLimit());
        return Math.max(c.pausedForMs(), Math.max(tokenWait, Math.max(requestWait, slotWait)));
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
