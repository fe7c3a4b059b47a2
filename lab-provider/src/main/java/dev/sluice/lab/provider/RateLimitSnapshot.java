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
        long resetTokensMillis) {

    /** Header name to value, in the order OpenAI sends them. */
    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-ratelimit-limit-requests", Long.toString(limitRequests));
        h.put("x-ratelimit-limit-tokens", Long.toString(limitTokens));
        h.put("x-ratelimit-remaining-requests", Long.toString(remainingRequests));
        h.put("x-ratelimit-remaining-tokens", Long.toString(remainingTokens));
        h.put("x-ratelimit-reset-requests", OpenAiDuration.format(resetRequestsMillis));
        h.put("x-ratelimit-reset-tokens", OpenAiDuration.format(resetTokensMillis));
        return h;
    }
}
