package dev.sluice.lab.scenario;

/**
 * Seed 000's token bucket (case 3): {@code capacity} tokens, refilled at {@code refillPerSecond},
 * one taken per page. Pure, time as an argument; not thread-safe ({@link PageLimiter} locks).
 */
public final class TokenBucket {
    private final double capacity;
    private final double refillPerMs;
    private double tokens;
    private long lastMs;

    public TokenBucket(double capacity, double refillPerSecond, long nowMs) {
        if (!(capacity >= 1) || Double.isInfinite(capacity)) {
            throw new IllegalArgumentException("bucket capacity must be at least 1, was " + capacity);
        }
        if (!(refillPerSecond > 0) || Double.isInfinite(refillPerSecond)) {
            throw new IllegalArgumentException("bucket refill must be a positive rate, was " + refillPerSecond);
        }
        this.capacity = capacity;
        this.refillPerMs = refillPerSecond / 1000.0;
        this.tokens = capacity; // a new bucket is full: a user may burst at once
        this.lastMs = nowMs;
    }

    /** Takes one token if there is one. */
    public boolean tryTake(long nowMs) {
        refill(nowMs);
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }

    /** Puts back a token taken a moment ago (the other bucket refused the page). */
    public void giveBack(long nowMs) {
        refill(nowMs);
        tokens = Math.min(capacity, tokens + 1);
    }

    /** Milliseconds until a token is there: 0 if one is now. */
    public long retryAfterMs(long nowMs) {
        refill(nowMs);
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / refillPerMs);
    }

    public double tokens(long nowMs) {
        refill(nowMs);
        return tokens;
    }

    private void refill(long nowMs) {
        if (nowMs > lastMs) {
            tokens = Math.min(capacity, tokens + (nowMs - lastMs) * refillPerMs);
            lastMs = nowMs;
        }
    }
}
