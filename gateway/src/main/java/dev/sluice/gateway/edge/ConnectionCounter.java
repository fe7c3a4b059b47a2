package dev.sluice.gateway.edge;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Open connections per client address, bounded. Pure (no Netty): the listener opens and closes,
 * this says yes or no. An address's entry goes away with its last connection, so the map holds
 * only addresses that have a connection open.
 */
public final class ConnectionCounter {
    private final int max;
    private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();

    /** @param max connections per address; 0 means no bound */
    public ConnectionCounter(int max) {
        if (max < 0) throw new IllegalArgumentException("max must be 0 or more, was " + max);
        this.max = max;
    }

    /** Counts a new connection from {@code address}; false (and nothing counted) when it would pass the bound. */
    public boolean tryOpen(String address) {
        if (max == 0) return true;
        boolean[] admitted = {false};
        open.compute(address, (a, n) -> {
            int current = n == null ? 0 : n;
            if (current >= max) return n;
            admitted[0] = true;
            return current + 1;
        });
        return admitted[0];
    }

    /** Forgets one connection from {@code address}, opened with a successful {@link #tryOpen}. */
    public void close(String address) {
        if (max == 0) return;
        open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    public int open(String address) {
        return open.getOrDefault(address, 0);
    }
}
