package dev.sluice.gateway.dispatch.lease;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.upstream.CallFailures;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.usage.Usage;

/**
 * What a call that was made settles on its lease ({@link LeaseSettlement#finish}): the outcome the
 * concurrency limit learns, and the corrections the answer's usage proves to the total and to the
 * input and output windows (none without usage: the charge stays, the safe side).
 */
public record FinishedCall(AimdLimit.Outcome outcome, long tokenDelta, long inputDelta, long outputDelta) {
    /** An answer held back for another provider: the slot goes back, nothing is corrected. */
    public static final FinishedCall FAILED_OVER = new FinishedCall(AimdLimit.Outcome.SUCCESS, 0, 0, 0);

    /**
     * A call cancelled (the client left) or failed (a timeout, a reset) before its answer passed.
     * Only the windows are corrected: a stream cut after its usage arrived settles the input and
     * output windows from it.
     */
    public static FinishedCall cut(boolean failed, Throwable error, Lease lease, BudgetLimits limits, Usage used) {
        AimdLimit.Outcome outcome = !failed
                ? AimdLimit.Outcome.SUCCESS
                : CallFailures.isTimeout(error) ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.FAILED;
        return new FinishedCall(outcome, 0, inputDelta(limits, lease, used), outputDelta(limits, lease, used));
    }

    /**
     * A call whose answer passed to the client with {@code status}, its usage {@code used} (null
     * when there is none or it is not this call's), against {@code estimate} as the provider is
     * charged for it.
     */
    public static FinishedCall answered(
            int status, boolean timedOut, Lease lease, BudgetLimits limits, RequestEstimate estimate, Usage used) {
        // Providers count prompt + max_tokens at admission and keep it for the minute: only the
        // prompt's difference is corrected, or the budget would think it had room the provider does not.
        // The lease charged the calibrated prompt (what is left after the reserved output).
        long chargedPrompt = Math.max(0, lease.job().tokens() - estimate.maxOutputTokens());
        long delta = used == null ? 0 : used.promptTokens() - chargedPrompt;
        AimdLimit.Outcome outcome = status == 504 || timedOut ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.SUCCESS;
        return new FinishedCall(outcome, delta, inputDelta(limits, lease, used), outputDelta(limits, lease, used));
    }

    /** The input window's correction: the prompt the provider counted against the one charged (0 without a window). */
    private static long inputDelta(BudgetLimits limits, Lease lease, Usage used) {
        if (used == null || limits.inputTokensPerMinute() == 0) return 0;
        return used.promptTokens() - lease.job().inputTokens();
    }

    /**
     * The output window's correction: what was written against the max_tokens reserved. Unlike the
     * total (which the provider keeps at prompt + max_tokens for the minute), an output limit is
     * settled to what was written, as Anthropic settles OTPM; 0 without a window.
     */
    private static long outputDelta(BudgetLimits limits, Lease lease, Usage used) {
        if (used == null || limits.outputTokensPerMinute() == 0) return 0;
        return used.completionTokens() - lease.job().outputTokens();
    }
}
