package dev.sluice.gateway.quota;

import java.time.Clock;
import java.util.Objects;

/**
 * The clock the tenant quota runs on in this process (the in-memory store; Redis uses its own
 * TIME). A type of its own rather than a {@link Clock} bean: libraries look up {@code Clock}
 * beans too, and a test's fake clock must reach the quota and nothing else.
 */
public record QuotaClock(Clock clock) {
    public QuotaClock {
        Objects.requireNonNull(clock, "clock");
    }

    public static QuotaClock system() {
        return new QuotaClock(Clock.systemUTC());
    }
}
