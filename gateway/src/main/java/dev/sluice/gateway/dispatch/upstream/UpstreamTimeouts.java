package dev.sluice.gateway.dispatch.upstream;

import java.time.Duration;

/**
 * How long an answer that has begun may keep the client and a provider slot waiting
 * ({@code sluice.upstream.*}). The time to the provider's first byte is the HTTP client's
 * {@code response-timeout}; these bound what comes after it, so an upstream that goes silent
 * mid-answer cannot hold a slot until its lease expires.
 *
 * @param streamIdle longest silence between two chunks of a stream (and before its first chunk)
 * @param body       longest time to receive a whole non-stream answer, from its headers
 */
public record UpstreamTimeouts(Duration streamIdle, Duration body) {
    public UpstreamTimeouts {
        positive(streamIdle, "sluice.upstream.stream-idle-timeout");
        positive(body, "sluice.upstream.body-timeout");
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive");
    }
}
