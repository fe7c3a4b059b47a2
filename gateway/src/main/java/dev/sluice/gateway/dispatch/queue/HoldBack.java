package dev.sluice.gateway.dispatch.queue;

import java.util.OptionalLong;

/**
 * Whether this replica's lanes wait for another replica's, so that equal tenants served by
 * different replicas get equal shares of one provider budget: the pure
 * decision, time as input. Each replica's {@link FairQueue} is fair among its own tenants;
 * across replicas, a lane whose shared counter is ahead of the lowest counter waiting on
 * another replica by more than {@code slack} is held back, so that the replica with the lagging
 * tenant gets the budget's next room. Never when no other replica has anyone waiting (no room
 * left idle), never for longer than {@code ttlMs} after the view was read (a store that stops
 * answering, or a replica that died, holds nobody back for good), and, where there is room, not
 * past {@link #patienceMs} while the lowest lane held for does not move (the pump's part).
 *
 * @param othersLowest the lowest counter waiting on another replica ({@link LaneShare.View#othersLowest()})
 * @param readAtMs     when that view was read
 * @param slack        how far ahead of it a lane may still go, in counter units (tokens × priority)
 * @param ttlMs        how long the view holds without a fresh one
 * @param othersDueAt  when the soonest start another replica's door promised a tenant's next job there
 *                     comes, on this replica's clock, counting tenants within {@link #dueReach}
 *                     ({@link LaneShare#dueAt}); {@link Long#MAX_VALUE}: none. From then on lanes here whose
 *                     next job was promised later wait ({@link FairQueue#holdNotDueAfter}), within the same
 *                     TTL and patience
 */
public record HoldBack(long othersLowest, long readAtMs, long slack, long ttlMs, long othersDueAt) {
    /** Holds nothing back: one replica alone, or no view yet. */
    public static final HoldBack NONE = new HoldBack(Long.MAX_VALUE, Long.MIN_VALUE, 0, 1, Long.MAX_VALUE);

    public HoldBack {
        if (slack < 0) throw new IllegalArgumentException("slack must not be negative, was " + slack);
        if (ttlMs < 1) throw new IllegalArgumentException("ttl must be positive, was " + ttlMs);
    }

    /** A hold by counters alone: no other replica's promised start said. */
    public HoldBack(long othersLowest, long readAtMs, long slack, long ttlMs) {
        this(othersLowest, readAtMs, slack, ttlMs, Long.MAX_VALUE);
    }

    /** The decision for a view read at {@code readAtMs}; {@link #NONE} when no other replica waits. */
    public static HoldBack of(OptionalLong othersLowest, long readAtMs, long slack, long ttlMs) {
        return othersLowest.isEmpty() ? NONE : new HoldBack(othersLowest.getAsLong(), readAtMs, slack, ttlMs);
    }

    /** The same hold, with when another replica's earliest promised start comes ({@link #othersDueAt}). */
    public HoldBack withOthersDueAt(long atMs) {
        return this == NONE ? NONE : new HoldBack(othersLowest, readAtMs, slack, ttlMs, atMs);
    }

    /**
     * How far in counter order other replicas' due work is waited for: what the lowest lane waiting
     * anywhere ({@code lowestHere}, or {@link #othersLowest}) and the slack reach; work further on waits
     * where it is, by counter.
     */
    public long dueReach(OptionalLong lowestHere) {
        long lowest = lowestHere.isPresent() ? Math.min(lowestHere.getAsLong(), othersLowest) : othersLowest;
        long reach = lowest + slack;
        return reach < lowest ? Long.MAX_VALUE : reach; // saturates
    }

    /**
     * The slack for a budget of {@code tokensPerMinute}: 2% of its minute (7.5 pages of 800
     * tokens when the provider allows 300 000 a minute). Enough that the counters' staleness
     * between two ticks (a tenant's share of a fraction of a second of the provider) does not
     * stall a replica at every tick; little enough that over a run the lone tenant ends within a
     * few pages of the others.
     */
    public static long slackFor(long tokensPerMinute) {
        return Math.max(1, tokensPerMinute / 50);
    }

    /**
     * How long a lane may wait, with room for it, for the lowest lane held for to move: half the
     * view's life. A replica that does not send its lagging lane while there is room (its pump
     * slowed by its store round trips or its CPU under a burst's intake) must not idle the
     * provider for the whole fleet: on the packaged gateway, two replicas on two cores, the
     * second held all its lanes for 2 s at a burst's start while the first took 2 s over its
     * first store calls, and pages told "at once" started seconds later or were dropped.
     */
    public long patienceMs() {
        return Math.max(1, ttlMs / 2);
    }

    /** The counter above which a lane waits at {@code nowMs}; {@link Long#MAX_VALUE}: none waits. */
    public long aboveAt(long nowMs) {
        if (this == NONE || othersLowest == Long.MAX_VALUE || stale(nowMs)) return Long.MAX_VALUE;
        long above = othersLowest + slack;
        return above < othersLowest ? Long.MAX_VALUE : above; // saturates
    }

    /**
     * When, read at {@code nowMs}, lanes whose next job's promised start has not come start to wait
     * for another replica's that has ({@link #othersDueAt}); {@link Long#MAX_VALUE}: they do not.
     */
    public long dueAt(long nowMs) {
        return this == NONE || stale(nowMs) ? Long.MAX_VALUE : othersDueAt;
    }

    /** Whether a lane here waits at {@code nowMs}, by counter or by another replica's due work. */
    public boolean holdsAt(long nowMs) {
        return aboveAt(nowMs) != Long.MAX_VALUE || dueAt(nowMs) <= nowMs;
    }

    /** The view is too old to hold anyone (or the clock jumped back past it). */
    private boolean stale(long nowMs) {
        return nowMs - readAtMs >= ttlMs || nowMs < readAtMs - ttlMs;
    }
}
