package dev.sluice.gateway.config;

/**
 * A provider's published limits for one model (or for every model, under "*").
 *
 * @param tokensPerMinute       prompt + reserved output in any minute; 0 when the provider meters
 *                              only input and output apart (Anthropic's ITPM and OTPM)
 * @param inputTokensPerMinute  prompt tokens in any minute; 0 = no such limit
 * @param outputTokensPerMinute output tokens in any minute, reserved from max_tokens and settled to
 *                              what was written; 0 = no such limit
 */
public record ModelLimits(
        long requestsPerMinute,
        long tokensPerMinute,
        int maxInFlight,
        double pricePerMillionTokens,
        long inputTokensPerMinute,
        long outputTokensPerMinute) {
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
        if (pricePerMillionTokens < 0) throw new IllegalArgumentException("price must not be negative");
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
}
