package dev.sluice.gateway.dispatch.budget;

/**
 * A signed correction of one charge in a provider budget ({@link ProviderBudgetStore#adjust}):
 * requests and tokens (total, input, output) to add, or to take back where negative. The signed
 * twin of {@link Amounts}, in the same order. The input and output windows are touched only for a
 * delta that is not zero.
 */
public record AmountsDelta(long requests, long tokens, long input, long output) {

    /** Tokens alone: the usage reported against the estimate ({@code actual - estimate}). */
    public static AmountsDelta tokens(long tokens) {
        return new AmountsDelta(0, tokens, 0, 0);
    }

    public boolean isZero() {
        return requests == 0 && tokens == 0 && input == 0 && output == 0;
    }

    /** Whether it corrects the input or the output window. */
    public boolean split() {
        return input != 0 || output != 0;
    }
}
