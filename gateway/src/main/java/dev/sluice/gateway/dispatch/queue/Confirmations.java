package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When a door's promise becomes firm. The door decides on the budget as this replica last saw it
 * and on the other replicas' lines as the last share showed them; at the same moment another
 * replica may promise or send the same room. A promise is confirmed once both views that came
 * after it have been checked against it: a store call sent after it was made (the other
 * replicas' sends before that call are in the budget it shows) and a share that carries the other
 * replicas' admissions of that moment. Until then each fresher view reviews it ({@link Door#review}).
 * Alone (nothing shared) the store's view is enough.
 *
 * <p>Among replicas, a promise gives way only when two reviews a share apart both find it broken:
 * the store's view is fresher than the last share, so the calls another replica sent since it
 * published its line are in the budget and still in its line, counted twice. Answered at the
 * first review, both replicas gave way for the same room in a burst, and a minute's room went
 * unused that nobody asked for again.
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
    /** When the last share came in. */
    private long lastShareAtMs = Long.MIN_VALUE;
    /** Promises a review found broken on a fleet view older than the review, and when. */
    private final Map<String, Doubt> doubted = new HashMap<>(); // by job id

    private record Doubt(long sinceMs, long enqueuedAtMs) {}

    /** Lanes are shared from now on: a promise waits for the fleet's view too. */
    public void sharing() {
        if (fleetSeenUpToMs == Long.MAX_VALUE) fleetSeenUpToMs = Long.MIN_VALUE;
    }

    /** Both views have been taken since the doubt: what they say about the promise stands. */
    private boolean settles(Doubt doubt) {
        return lastShareAtMs > doubt.sinceMs() && storeSeenUpToMs > doubt.sinceMs();
    }

    /** Nothing is shared any more (Redis down: each replica on its own share of the limits): the store's view alone confirms. */
    public void notShared() {
        fleetSeenUpToMs = Long.MAX_VALUE;
        doubted.clear();
    }

    /** A share came in at {@code nowMs}: the other replicas' admissions up to {@code upToMs} are in it. */
    public void fleetSeen(long upToMs, long nowMs) {
        fleetSeenUpToMs = Math.max(fleetSeenUpToMs, upToMs);
        lastShareAtMs = Math.max(lastShareAtMs, nowMs);
    }

    /**
     * The promises not yet confirmed that {@code capacity} (the budget now) and the door's view of
     * the fleet no longer keep, to be answered busy at once; the store's view came from a call sent
     * at {@code storeSentAtMs} (MIN_VALUE: no store call, a share). What both views now cover is
     * confirmed.
     */
    public List<DoorDecision.Displaced> review(Door door, Door.Capacity capacity, long nowMs, long storeSentAtMs) {
        storeSeenUpToMs = Math.max(storeSeenUpToMs, storeSentAtMs);
        List<DoorDecision.Displaced> broken = door.review(capacity, nowMs, confirmedBeforeMs);
        List<DoorDecision.Displaced> out = broken;
        long stillDoubted = Long.MAX_VALUE;
        if (fleetSeenUpToMs != Long.MAX_VALUE) {
            out = new ArrayList<>();
            Map<String, Doubt> still = new HashMap<>();
            for (DoorDecision.Displaced d : broken) {
                Doubt doubt = doubted.getOrDefault(
                        d.job().id(), new Doubt(nowMs, d.job().enqueuedAtMs()));
                if (settles(doubt)) out.add(d); // a store view and a share both taken since find it broken too
                else still.put(d.job().id(), doubt);
            }
            // One found kept on views not both newer than its doubt stays in doubt: a share fresher than the
            // store's view misses the other replicas' sends between the two, as the reverse counts them twice.
            doubted.forEach((id, doubt) -> {
                if (!settles(doubt)) still.putIfAbsent(id, doubt);
            });
            doubted.clear();
            doubted.putAll(still);
            for (Doubt doubt : still.values()) stillDoubted = Math.min(stillDoubted, doubt.enqueuedAtMs());
        }
        // A doubted promise stays under review until it is kept or gives way.
        long confirmed = Math.min(Math.min(storeSeenUpToMs, fleetSeenUpToMs), stillDoubted);
        confirmedBeforeMs = Math.max(confirmedBeforeMs, confirmed);
        return out;
    }
}
