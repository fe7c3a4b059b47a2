package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * When a door's promise becomes firm. The door decides on the budget as this replica last saw it
 * and on the other replicas' lines as the last share showed them; at the same moment another
 * replica may promise or send the same room. A promise is confirmed once both views that came
 * after it have been checked against it: a store call sent after it was made (the other
 * replicas' sends before that call are in the budget it shows) and a share that carries the other
 * replicas' admissions of that moment. Until then each fresher view reviews it ({@link Door#review}).
 * Alone (nothing shared) the store's view is enough.
 *
 * <p>Among replicas the two views are never of one moment, and each errs its own way about the
 * calls another replica sent after it published its line. A store view newer than that share
 * counts them twice (in the budget and still in the line): a promise it finds broken may not be,
 * and answered at once, both replicas gave way for the same room in a burst and the minute went
 * unused. A store view older than the share counts them nowhere: a promise it finds kept may not
 * be. So a promise found broken gives way when the store's call went out before what the share
 * surely holds, when it is broken on the budget alone (the others' lines not counted: nothing there
 * is counted twice), or once a store view and a share taken since it was doubted both find it broken;
 * a doubt is cleared only when both views hold its moment, and a doubted promise is not confirmed.
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
    /** When the last share came in (MIN_VALUE: none yet). */
    private long lastShareAtMs = Long.MIN_VALUE;
    /** Promises found broken on a view that may count a send twice, by job id. */
    private final Map<String, Doubt> doubted = new HashMap<>();

    private record Doubt(long sinceMs, long enqueuedAtMs) {}

    /** Lanes are shared from now on: a promise waits for the fleet's view too. */
    public void sharing() {
        if (fleetSeenUpToMs == Long.MAX_VALUE) fleetSeenUpToMs = Long.MIN_VALUE;
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
        boolean alone = fleetSeenUpToMs == Long.MAX_VALUE;
        if (alone) {
            confirmedBeforeMs = Math.max(confirmedBeforeMs, storeSeenUpToMs);
            return broken;
        }
        // The store's call went out before what the share surely holds: no send is counted twice.
        boolean neverTwice = storeSeenUpToMs <= fleetSeenUpToMs;
        // Broken on the budget alone, the others' lines not counted: broken, whichever view is the newer.
        Set<String> certain = new HashSet<>();
        if (!neverTwice && !broken.isEmpty())
            for (DoorDecision.Displaced d : door.reviewOnTheBudgetAlone(capacity, nowMs, confirmedBeforeMs))
                certain.add(d.job().id());
        List<DoorDecision.Displaced> out = new ArrayList<>();
        Map<String, Doubt> still = new HashMap<>();
        for (DoorDecision.Displaced d : broken) {
            Doubt doubt =
                    doubted.getOrDefault(d.job().id(), new Doubt(nowMs, d.job().enqueuedAtMs()));
            boolean bothSince = lastShareAtMs > doubt.sinceMs() && storeSeenUpToMs > doubt.sinceMs();
            if (neverTwice || bothSince || certain.contains(d.job().id())) out.add(d);
            else still.put(d.job().id(), doubt);
        }
        // A doubt found kept stands until both views hold its moment: until then a share fresher than the store's
        // view misses the sends between the two, and no share holds the other replicas' latest admissions.
        doubted.forEach((id, doubt) -> {
            if (!(fleetSeenUpToMs > doubt.sinceMs() && storeSeenUpToMs > doubt.sinceMs())) still.putIfAbsent(id, doubt);
        });
        doubted.clear();
        doubted.putAll(still);
        long firstDoubted = Long.MAX_VALUE;
        for (Doubt doubt : still.values()) firstDoubted = Math.min(firstDoubted, doubt.enqueuedAtMs());
        long covered = Math.min(Math.min(storeSeenUpToMs, fleetSeenUpToMs), firstDoubted);
        confirmedBeforeMs = Math.max(confirmedBeforeMs, covered);
        return out;
    }
}
