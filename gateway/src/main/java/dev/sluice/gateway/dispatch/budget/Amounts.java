package dev.sluice.gateway.dispatch.budget;

/**
 * Requests and tokens (total, input, output) of one provider budget, as one value: what a
 * replica's slice holds, asks for or gives back. Never negative; input and output are 0 where
 * the budget has no such windows.
 */
public record Amounts(long requests, long tokens, long input, long output) {
    public static final Amounts ZERO = new Amounts(0, 0, 0, 0);

    public Amounts {
        if (requests < 0 || tokens < 0 || input < 0 || output < 0) {
            throw new IllegalArgumentException("amounts must not be negative: requests=" + requests + " tokens="
                    + tokens + " input=" + input + " output=" + output);
        }
    }

    /** One call's charge: a request and its tokens. */
    public static Amounts call(long tokens, long input, long output) {
        return new Amounts(1, tokens, input, output);
    }

    public boolean isZero() {
        return requests == 0 && tokens == 0 && input == 0 && output == 0;
    }

    /** Whether these amounts cover {@code other} in every dimension. */
    public boolean covers(Amounts other) {
        return requests >= other.requests && tokens >= other.tokens && input >= other.input && output >= other.output;
    }

    /** These less {@code other}; the caller has checked {@link #covers}. */
    public Amounts minus(Amounts other) {
        return new Amounts(
                requests - other.requests, tokens - other.tokens, input - other.input, output - other.output);
    }

    /** Added, saturating at Long.MAX_VALUE. */
    public Amounts plus(Amounts other) {
        return new Amounts(
                sat(requests, other.requests),
                sat(tokens, other.tokens),
                sat(input, other.input),
                sat(output, other.output));
    }

    /** These amounts taken back: a refund of the charge, or a slice's rest given back. */
    public AmountsDelta negated() {
        return new AmountsDelta(-requests, -tokens, -input, -output);
    }

    /** These amounts added as a correction. */
    public AmountsDelta asDelta() {
        return new AmountsDelta(requests, tokens, input, output);
    }

    /** The larger of the two in each dimension. */
    public Amounts max(Amounts other) {
        return new Amounts(
                Math.max(requests, other.requests),
                Math.max(tokens, other.tokens),
                Math.max(input, other.input),
                Math.max(output, other.output));
    }

    private static long sat(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
