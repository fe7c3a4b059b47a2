package dev.sluice.gateway.quota;

/**
 * One window's state as a caller sees it, after the decision: the caps, what is used in the
 * window now, and how long until the usage in it has fully drained.
 */
public record WindowUsage(
        String name,
        long seconds,
        long limitTokens,
        long limitRequests,
        long usedTokens,
        long usedRequests,
        long resetMs) {

    public long remainingTokens() {
        return Math.max(0, limitTokens - usedTokens);
    }

    public long remainingRequests() {
        return Math.max(0, limitRequests - usedRequests);
    }

    /** The same window under another name (a level's window as its tier names it). */
    public WindowUsage withName(String other) {
        return new WindowUsage(other, seconds, limitTokens, limitRequests, usedTokens, usedRequests, resetMs);
    }

    /** The larger of the token and request shares used, in [0, 1+]. */
    public double utilisation() {
        return Math.max((double) usedTokens / limitTokens, (double) usedRequests / limitRequests);
    }
}
