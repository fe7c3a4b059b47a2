package dev.sluice.gateway.dispatch.budget;

/**
 * One ended call's correction of a provider budget, queued by a replica and sent with others in
 * one store call ({@link SliceAsk#settlements}). Signed deltas against the charge made at
 * {@code chargedAtMs}; when {@code countedByMs} proves the provider counted the call in a later
 * slot, the charge ({@code chargedTokens} and its request) moves there ({@link ProviderBudget#settle}).
 *
 * @param countedByMs {@link Long#MIN_VALUE} when nothing is proved (or for a refund)
 */
public record BudgetSettlement(
        long chargedAtMs,
        long countedByMs,
        long chargedTokens,
        long deltaTokens,
        long deltaRequests,
        long deltaInput,
        long deltaOutput) {
    public BudgetSettlement {
        if (chargedTokens < 0)
            throw new IllegalArgumentException("chargedTokens must not be negative, was " + chargedTokens);
    }

    /** A correction in the charge's own slot, moving nothing. */
    public static BudgetSettlement adjust(long chargedAtMs, AmountsDelta delta) {
        return new BudgetSettlement(
                chargedAtMs, Long.MIN_VALUE, 0, delta.tokens(), delta.requests(), delta.input(), delta.output());
    }

    /** Its signed deltas, as one value. */
    public AmountsDelta delta() {
        return new AmountsDelta(deltaRequests, deltaTokens, deltaInput, deltaOutput);
    }

    /**
     * Whether applying it moves the charge (the request moves with its tokens). Not a refund, and
     * not with input/output deltas: the split windows are settled in the charge's own slot, as
     * {@code LeaseSettlement} has always done.
     */
    public boolean moves() {
        return deltaRequests == 0
                && deltaInput == 0
                && deltaOutput == 0
                && ProviderBudget.movesLater(chargedAtMs, countedByMs);
    }
}
