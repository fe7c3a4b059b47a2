package dev.sluice.lab.provider;

import dev.sluice.gateway.api.OpenAiDuration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The numbers behind a real provider's {@code x-ratelimit-*} headers at one instant.
 * A reset is the time until the limit is back to its initial state (OpenAI's definition), that is
 * until the newest admission still in the rolling window has left it.
 */
public record RateLimitSnapshot(
        long limitRequests,
        long remainingRequests,
        long resetRequestsMillis,
        long limitTokens,
        long remainingTokens,
        long resetTokensMillis,
        long limitInputTokens,
        long remainingInputTokens,
        long limitOutputTokens,
        long remainingOutputTokens) {

    /** A provider with one combined token limit (OpenAI's). */
    public RateLimitSnapshot(
            long limitRequests,
            long remainingRequests,
            long resetRequestsMillis,
            long limitTokens,
            long remainingTokens,
            long resetTokensMillis) {
        this(
                limitRequests,
                remainingRequests,
                resetRequestsMillis,
                limitTokens,
                remainingTokens,
                resetTokensMillis,
                0,
                0,
                0,
                0);
    }

    /** Header name to value, in the order OpenAI sends them. */
    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-ratelimit-limit-requests", Long.toString(limitRequests));
        if (limitTokens > 0) {
            h.put("x-ratelimit-limit-tokens", Long.toString(limitTokens));
        }
        h.put("x-ratelimit-remaining-requests", Long.toString(remainingRequests));
        if (limitTokens > 0) {
            h.put("x-ratelimit-remaining-tokens", Long.toString(remainingTokens));
        }
        h.put("x-ratelimit-reset-requests", OpenAiDuration.format(resetRequestsMillis));
        if (limitTokens > 0) {
            h.put("x-ratelimit-reset-tokens", OpenAiDuration.format(resetTokensMillis));
        }
        // The split limits, named OpenAI's way (Anthropic sends them as anthropic-ratelimit-*-tokens-*).
        split(h, "input-tokens", limitInputTokens, remainingInputTokens);
        split(h, "output-tokens", limitOutputTokens, remainingOutputTokens);
        return h;
    }

    private void split(Map<String, String> h, String name, long limit, long remaining) {
        if (limit > 0) {
            h.put("x-ratelimit-limit-" + name, Long.toString(limit));
            h.put("x-ratelimit-remaining-" + name, Long.toString(remaining));
            h.put("x-ratelimit-reset-" + name, OpenAiDuration.format(resetTokensMillis));
        }
    }
}
