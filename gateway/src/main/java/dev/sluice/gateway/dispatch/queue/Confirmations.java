package dev.sluice.gateway.dispatch.queue;

import java.util.List;

/**
 * When a door's promise becomes firm. The door decides on the budget as this replica last saw it
 * and on the other replicas' lines as the last share showed them; at the same moment another
 * replica may promise or send the same room. A promise is confirmed once both views that came
 * after it have been checked against it: a store call sent after it was made (the other
 * replicas' sends before that call are in the budget it shows) and a share that carries the other
 * replicas' admissions of that moment. Until then each fresher view reviews it ({@link Door#review}).
 * Alone (nothing shared) the store's view is enough.
 *
 * <p>Pure; single-threaded (the dispatcher's loop); times are the caller's clock.
 */
public final class Confirmations {
    /** Promises made before this are confirmed; later ones may still give way. */
    private long confirmedBeforeMs = Long.MIN_VALUE;
    /** The latest store call answered was sent then. */
    private long storeSeenUpToMs = Long.MIN_VALUE;
    /** The other replicas' admissions up to then are in the last share; MAX_VALUE while nothing is shared. */
    private long fleetSeenUpToMs = Long.MAX_VALUE;

    /** Lanes are shared from now on: a promise waits for the fleet's view too. */
    public void sharing() {
        if (fleetSeenUpToMs == Long.MAX_VALUE) fleetSeenUpToMs = Long.MIN_VALUE;
    }

    /** Nothing is shared any more (Redis down: each replica on its own share of the limits): the store's view alone confirms. */
    public void notShared() {
        fleetSeenUpToMs = Long.MAX_VALUE;
    }

    /** A share came in: the other replicas' admissions up to {@code upToMs} are in it. */
    public void fleetSeen(long upToMs) {
        fleetSeenUpToMs = Math.max(fleetSeenUpToMs, upToMs);
    }

    /**
     * The promises not yet confirmed that {@code capacity} (the budget now) and the door's view of
     * the fleet no longer keep, to be answered busy at once; the store's view came from a call sent
     * at {@code storeSentAtMs} (MIN_VALUE: no store call, a share). What both views now cover is
     * confirmed.
     */
    public List<DoorDecision.Displaced> review(Door door, Door.Capacity capacity, long nowMs, long storeSentAtMs) {
        storeSeenUpToMs = Math.max(storeSeenUpToMs, storeSentAtMs);
        List<DoorDecision.Displaced> out = door.review(capacity, nowMs, confirmedBeforeMs);
        confirmedBeforeMs = Math.max(confirmedBeforeMs, Math.min(storeSeenUpToMs, fleetSeenUpToMs));
        return out;
    }
}
