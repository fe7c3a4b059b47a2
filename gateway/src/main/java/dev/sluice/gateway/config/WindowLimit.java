package dev.sluice.gateway.config;

import java.time.Duration;
import java.util.Objects;

/** A sliding window's caps: at most {@code tokens} and {@code requests} admitted in any {@code seconds}. */
public record WindowLimit(String name, long seconds, long tokens, long requests) {
    public WindowLimit {
        Objects.requireNonNull(name, "name");
        if (seconds <= 0 || tokens <= 0 || requests <= 0) {
            throw new IllegalArgumentException("window " + name + ": seconds, tokens and requests must be positive");
        }
    }

    public Duration length() {
        return Duration.ofSeconds(seconds);
    }
}
