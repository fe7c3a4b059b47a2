package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;

/**
 * What the dispatcher believes a provider budget can take right now: its limits and what is
 * used (a {@link BudgetSnapshot}, plus what this dispatcher has sent since). The fair queue
 * only reads it; the budget store still decides for real.
 */
public record BudgetView(
        long tokenLimit,
        long tokensUsed,
        long requestLimit,
        long requestsUsed,
        int inFlightLimit,
        int inFlight,
        boolean paused,
        long inputLimit,
        long inputUsed,
        long outputLimit,
        long outputUsed) {

    /** A budget without input and output windows. */
    public BudgetView(
            long tokenLimit,
            long tokensUsed,
            long requestLimit,
            long requestsUsed,
            int inFlightLimit,
            int inFlight,
            boolean paused) {
        this(tokenLimit, tokensUsed, requestLimit, requestsUsed, inFlightLimit, inFlight, paused, 0, 0, 0, 0);
    }

    public static BudgetView of(BudgetSnapshot s) {
        return new BudgetView(
                s.limits().tokensPerMinute(),
                s.usedTokens(),
                s.limits().requestsPerMinute(),
                s.usedRequests(),
                s.limits().maxInFlight(),
                s.inFlight(),
                s.paused(),
                s.limits().inputTokensPerMinute(),
                s.usedInputTokens(),
                s.limits().outputTokensPerMinute(),
                s.usedOutputTokens());
    }

    /** The view once {@code job} has been sent: its tokens (input and output too), a request and a slot taken. */
    public BudgetView after(Job job) {
        return new BudgetView(
                tokenLimit,
                plus(tokensUsed, job.tokens()),
                requestLimit,
                requestsUsed + 1,
                inFlightLimit,
                inFlight + 1,
                paused,
                inputLimit,
                plus(inputUsed, job.inputTokens()),
                outputLimit,
                plus(outputUsed, job.outputTokens()));
    }

    /** At most half of each limit used: room by far, whatever one more job takes. */
    public boolean halfFree() {
        return tokensUsed <= tokenLimit / 2 && requestsUsed <= requestLimit / 2 && inFlight <= inFlightLimit / 2;
    }

    private static long plus(long used, long more) {
        long sum = used + more;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * Whether {@code job} may be sent now. Interactive: if its tokens, a request and a slot fit.
     * Batch: only if, after it, the reserve {@code ceil(floor × limit)} of each dimension is
     * still free, so batch alone brings usage to at most {@code floor((1 - floor) × limit)}.
     * A batch job too big to leave the token reserve intact runs once the window is otherwise
     * empty. A job larger than the whole token limit is let through at once: the budget refuses
     * it for good, so it fails fast instead of blocking its lane.
     */
    public boolean admits(Job job, double interactiveFloor) {
        if (job.tokens() > tokenLimit) return true;
        if (inputLimit > 0 && job.inputTokens() > inputLimit || outputLimit > 0 && job.outputTokens() > outputLimit)
            return true;
        if (paused) return false;
        boolean batch = job.jobClass() == JobClass.BATCH;
        double floor = batch ? interactiveFloor : 0;
        // The input and output windows, where the provider has them, count like any other dimension.
        return fits(job.tokens(), tokenLimit - tokensUsed, tokenLimit, floor)
                && fits(1, requestLimit - requestsUsed, requestLimit, floor)
                && fits(1, (long) inFlightLimit - inFlight, inFlightLimit, floor)
                && (inputLimit == 0 || fits(job.inputTokens(), inputLimit - inputUsed, inputLimit, floor))
                && (outputLimit == 0 || fits(job.outputTokens(), outputLimit - outputUsed, outputLimit, floor));
    }

    private static boolean fits(long need, long free, long limit, double floor) {
        long reserve = Math.min(reserve(limit, floor), limit - need);
        return need + reserve <= free;
    }

    /** ceil(floor × limit), tolerant of binary fractions (0.1 × 190 is 19, not 20). */
    static long reserve(long limit, double floor) {
        return floor <= 0 ? 0 : (long) Math.ceil(floor * limit - 1e-9);
    }
}
