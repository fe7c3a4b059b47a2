package dev.sluice.gateway.dispatch;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/**
 * Where replicas share their fair queues' counters for one provider budget (issue 15, item 5):
 * Redis (one hash per budget) or this process's memory. Each replica, at each tick, adds what
 * its lanes were served since its last tick to each tenant's shared counter (tokens × priority,
 * the {@link FairQueue}'s unit), says which tenants wait on it, and reads back the tenants'
 * counters and the lowest counter waiting on any other replica. A tenant that starts waiting
 * again (nobody reported it waiting within the TTL) is lifted to the shared floor less the
 * credit, as {@link FairQueue} lifts a lane locally; a replica that stops publishing drops out
 * after the TTL. One contract suite tests both adapters.
 */
public interface LaneShare {

    /**
     * One lane of this replica at a tick.
     *
     * @param served  tokens × priority served since this replica's last report (negative after a correction)
     * @param waiting whether the lane has work waiting here now
     */
    record Report(String tenant, long served, boolean waiting) {
    }

    /**
     * What the fleet says back.
     *
     * @param othersLowest the lowest counter among tenants waiting on another replica (fresh within
     *                     the TTL); empty when no other replica has anyone waiting
     * @param counters     the shared counter of every tenant reported, after this report
     */
    record View(OptionalLong othersLowest, Map<String, Long> counters) {
        public static final View ALONE = new View(OptionalLong.empty(), Map.of());
    }

    /**
     * @param ttlMs  a replica (and a tenant's waiting mark) silent this long no longer counts
     * @param credit how far below the shared floor a tenant that starts waiting again is placed
     */
    record Terms(long ttlMs, long credit) {
        public Terms {
            if (ttlMs < 1) throw new IllegalArgumentException("ttl must be positive, was " + ttlMs);
            if (credit < 0 || credit > MAX_COUNTER) throw new IllegalArgumentException("credit out of range: " + credit);
        }
    }

    /**
     * Counters saturate here, in Java and in Lua alike: 2^53, the largest integer a Lua number
     * (a double) holds exactly. Years of a provider's whole minute at priority 3 stay far below.
     */
    long MAX_COUNTER = 1L << 53;

    /** Clamps {@code v} into [-MAX_COUNTER, MAX_COUNTER]. */
    static long clamp(long v) {
        return Math.max(-MAX_COUNTER, Math.min(MAX_COUNTER, v));
    }

    /** In one call: reports {@code replica}'s lanes of budget {@code key} at {@code nowMs} and returns the fleet's view. */
    Mono<View> publish(String key, String replica, long nowMs, List<Report> lanes, Terms terms);
}
