package dev.sluice.gateway.support;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The state an in-memory store keeps per key, each used under its own lock (a few array
 * operations: a monitor is cheaper than anything cleverer), and dropped once idle, checked at
 * most once a minute, so memory follows the keys in use, not every key ever seen.
 *
 * @param <S> one key's state, its own monitor
 */
public final class LockedStates<S> {
    private final Clock clock;
    private final Supplier<S> create;
    private final BiPredicate<S, Long> idle;
    private final ConcurrentHashMap<String, S> states = new ConcurrentHashMap<>();
    private volatile long nextSweepMs;

    /**
     * @param create a new key's state
     * @param idle   whether a state at the given time holds nothing, so dropping it loses nothing
     */
    public LockedStates(Clock clock, Supplier<S> create, BiPredicate<S, Long> idle) {
        this.clock = clock;
        this.create = create;
        this.idle = idle;
    }

    /** {@code action} on {@code key}'s state, under its lock; the state is made if there is none. */
    public <T> T apply(String key, Function<S, T> action) {
        sweepIdle();
        while (true) {
            S state = states.computeIfAbsent(key, k -> create.get());
            synchronized (state) {
                // The sweeper may have dropped this instance between lookup and lock: act on the live one.
                if (states.get(key) == state) return action.apply(state);
            }
        }
    }

    /** States held now, for tests and metrics. */
    public int size() {
        return states.size();
    }

    /** At most once a minute, drop the states that are idle. */
    private void sweepIdle() {
        long now = clock.millis();
        if (now < nextSweepMs) return;
        nextSweepMs = now + 60_000;
        states.forEach((key, state) -> {
            synchronized (state) {
                if (idle.test(state, now)) states.remove(key, state);
            }
        });
    }
}
