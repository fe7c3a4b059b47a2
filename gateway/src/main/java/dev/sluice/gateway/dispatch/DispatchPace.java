package dev.sluice.gateway.dispatch;

/**
 * How long one dispatch takes (the budget store's answer to an acquire, and the loop's turn to go
 * on): a pump sends one job per acquire, so a job with {@code n} jobs ahead of it in line waits at
 * least {@code n} dispatches, whatever room the budget has. The door reads the room; this is the
 * time to hand it out. An average that follows the last eight; nothing before the first dispatch.
 *
 * <p>Why: on two replicas sharing a Redis on two busy cores, an acquire took 3-7 ms at a burst's
 * start, and the 100 pages a replica's door had told "at once" were sent over 0.7-1.5 s.
 * Not thread-safe: the pump's loop owns it.
 */
final class DispatchPace {
    private double meanMs;
    private boolean known;

    /** A dispatch took {@code ms}: the first says it all, later ones an eighth each. */
    void took(long ms) {
        long took = Math.max(0, ms);
        meanMs = known ? meanMs + (took - meanMs) / 8 : took;
        known = true;
    }

    /** The least wait of a job with {@code jobsAhead} jobs ahead of it in this line, in ms. */
    long waitMs(int jobsAhead) {
        return jobsAhead <= 0 ? 0 : (long) Math.ceil(jobsAhead * meanMs);
    }
}
