package dev.sluice.gateway.dispatch;

/**
 * A provider budget's state at {@code nowMs} (the store's clock: Redis TIME or the local one).
 *
 * @param usedRequests  requests in the rolling minute
 * @param usedTokens    tokens in the rolling minute (estimates, as reconciled so far)
 * @param inFlight      leases held and not expired
 * @param pausedUntilMs end of an upstream-requested pause, 0 when not paused
 * @param resetMs       time from now until everything in the window has left it
 */
public record BudgetSnapshot(BudgetLimits limits, long nowMs, long usedRequests, long usedTokens, int inFlight,
                             long pausedUntilMs, long resetMs) {

    public long remainingTokens() {
        return Math.max(0, limits.tokensPerMinute() - usedTokens);
    }

    public long remainingRequests() {
        return Math.max(0, limits.requestsPerMinute() - usedRequests);
    }

    public int freeSlots() {
        return Math.max(0, limits.maxInFlight() - inFlight);
    }

    public long pausedForMs() {
        return Math.max(0, pausedUntilMs - nowMs);
    }

    public boolean paused() {
        return pausedUntilMs > nowMs;
    }

    /** Share of the token window used, for metrics. */
    public double tokenUtilisation() {
        return (double) usedTokens / limits.tokensPerMinute();
    }

    public double requestUtilisation() {
        return (double) usedRequests / limits.requestsPerMinute();
    }
}
