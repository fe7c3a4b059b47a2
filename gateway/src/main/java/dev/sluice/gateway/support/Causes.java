package dev.sluice.gateway.support;

import java.util.function.Predicate;

/**
 * A failure's cause chain, searched: Netty, Reactor and Spring wrap what happened (a refused
 * connection, a read timeout, a client gone) in exceptions of their own, at depths that differ
 * by path.
 */
public final class Causes {
    /** Deeper than any real chain; it also ends a chain that loops back on itself. */
    private static final int MAX_DEPTH = 32;

    private Causes() {}

    /** The first of {@code failure} and its causes that {@code test} accepts, or null. */
    public static Throwable find(Throwable failure, Predicate<Throwable> test) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            if (test.test(t)) return t;
        }
        return null;
    }

    /** Whether {@code failure} or one of its causes {@code test} accepts. */
    public static boolean any(Throwable failure, Predicate<Throwable> test) {
        return find(failure, test) != null;
    }
}
