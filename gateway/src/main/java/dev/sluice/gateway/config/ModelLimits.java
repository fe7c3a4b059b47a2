package dev.sluice.gateway.config;

/**
 * A provider's published limits and prices for one model (or for every model, under "*").
 *
 * @param tokensPerMinute             prompt + reserved output in any minute; 0 when the provider meters
 *                                    only input and output apart (Anthropic's ITPM and OTPM)
 * @param pricePerMillionTokens       USD per million tokens as the file gives it (input and output alike)
 * @param inputTokensPerMinute        prompt tokens in any minute; 0 = no such limit
 * @param outputTokensPerMinute       output tokens in any minute, reserved from max_tokens and settled to
 *                                    what was written; 0 = no such limit
 * @param pricePerMillionInputTokens  USD per million prompt tokens: {@code price-per-million-input-tokens}
 *                                    where given, else the single price
 * @param pricePerMillionOutputTokens USD per million output tokens, likewise
 */
public record ModelLimits(
        long requestsPerMinute,
        long tokensPerMinute,
        int maxInFlight,
        double pricePerMillionTokens,
        long inputTokensPerMinute,
        long outputTokensPerMinute,
        double pricePerMillionInputTokens,
        double pricePerMillionOutputTokens) {
    public ModelLimits {
        if (requestsPerMinute <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("provider limits must be positive");
        }
        if (tokensPerMinute < 0 || inputTokensPerMinute < 0 || outputTokensPerMinute < 0) {
            throw new IllegalArgumentException("token limits must be positive when present");
        }
        if (tokensPerMinute == 0 && !split(inputTokensPerMinute, outputTokensPerMinute)) {
            throw new IllegalArgumentException("at least one token limit (total, input or output) is required");
        }
        for (double price :
                new double[] {pricePerMillionTokens, pricePerMillionInputTokens, pricePerMillionOutputTokens})
            if (!(price >= 0) || Double.isInfinite(price))
                throw new IllegalArgumentException("price must be a finite amount, not negative");
    }

    /** Input and output at the one price. */
    public ModelLimits(
            long requestsPerMinute,
            long tokensPerMinute,
            int maxInFlight,
            double pricePerMillionTokens,
            long inputTokensPerMinute,
            long outputTokensPerMinute) {
        this(
                requestsPerMinute,
                tokensPerMinute,
                maxInFlight,
                pricePerMillionTokens,
                inputTokensPerMinute,
                outputTokensPerMinute,
                pricePerMillionTokens,
                pricePerMillionTokens);
    }

    /** One combined token limit, no input/output split (what OpenAI publishes). */
    public ModelLimits(long requestsPerMinute, long tokensPerMinute, int maxInFlight, double pricePerMillionTokens) {
        this(requestsPerMinute, tokensPerMinute, maxInFlight, pricePerMillionTokens, 0, 0);
    }

    /** Whether input or output tokens are limited apart. */
    public boolean split() {
        return split(inputTokensPerMinute, outputTokensPerMinute);
    }

    private static boolean split(long input, long output) {
        return input > 0 || output > 0;
    }

    /** The input price in micro-dollars per million tokens ({@link Money}). */
    public long inputMicrosPerMillion() {
        return Money.micros(pricePerMillionInputTokens);
    }

    /** The output price in micro-dollars per million tokens. */
    public long outputMicrosPerMillion() {
        return Money.micros(pricePerMillionOutputTokens);
    }

    /** What {@code input} prompt tokens and {@code output} output tokens cost here, in micro-dollars, rounded up. */
    public long costMicros(long input, long output) {
        return Money.cost(input, output, inputMicrosPerMillion(), outputMicrosPerMillion());
    }
}
