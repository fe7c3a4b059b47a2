package dev.sluice.lab.scenario;

import java.util.HashMap;
import java.util.Map;

/**
 * Case 3's limiter: a page takes a token from its user's bucket and from the global one, or is
 * refused (our own 429, instant and free). Per user: {@code perUser} (seed: 5 pages of burst,
 * 2 a second); global: pinned to the provider's requests per minute. Time is an argument.
 */
public final class PageLimiter {
    /** A bucket's shape. */
    public record Shape(double capacity, double refillPerSecond) {
        public Shape {
            new TokenBucket(capacity, refillPerSecond, 0); // validates
        }
    }

    private final Shape perUser;
    private final TokenBucket global;
    private final Map<Integer, TokenBucket> users = new HashMap<>();

    public PageLimiter(Shape perUser, Shape global, long nowMs) {
        this.perUser = perUser;
        this.global = new TokenBucket(global.capacity(), global.refillPerSecond(), nowMs);
    }

    /** True if {@code user}'s page may go now; both buckets are charged, or neither. */
    public synchronized boolean tryAcquire(int user, long nowMs) {
        TokenBucket mine =
                users.computeIfAbsent(user, u -> new TokenBucket(perUser.capacity(), perUser.refillPerSecond(), nowMs));
        if (!mine.tryTake(nowMs)) return false;
        if (global.tryTake(nowMs)) return true;
        mine.giveBack(nowMs);
        return false;
    }
}
