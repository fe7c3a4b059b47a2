package dev.sluice.gateway.dispatch.budget;

import java.time.Clock;
import java.util.Objects;

/**
 * The clock the provider budgets, the door and the dispatch stage run on: real time, except in a
 * lab gateway whose whole world (provider, budget, callers) runs on one clock that is faster than
 * the wall's (see {@code lab.scenario.ScaledClock}). A type of its own, like {@code QuotaClock},
 * so replacing it reaches the dispatch stage and nothing else.
 */
public record ProviderClock(Clock clock) {
    public ProviderClock {
        Objects.requireNonNull(clock, "clock");
    }

    public static ProviderClock system() {
        return new ProviderClock(Clock.systemUTC());
    }
}
