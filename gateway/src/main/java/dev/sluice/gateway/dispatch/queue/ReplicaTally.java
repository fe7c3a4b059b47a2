package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair queue among other replicas. Each replica has its own queue; with Redis, its
 * dispatcher reports what each lane was served ({@link #takeReports}), takes back each tenant's
 * counter summed over every replica ({@link #rebase}) and holds back lanes ahead of the lowest
 * one waiting elsewhere ({@link #holdAbove}, {@link HoldBack}); see {@code LaneSharing}. Alone,
 * none of this is called: nothing is tallied and nothing is held back.
 */
final class ReplicaTally {
    /** Lanes whose counter is above this wait (across replicas, see {@link HoldBack}); MAX_VALUE: none. */
    private long holdAbove = Long.MAX_VALUE;
    /** From then on, lanes whose next job's promised start has not come wait for another replica's that has. */
    private long othersDueAt = Long.MAX_VALUE;
    /** When the pump last said so: the promised starts it is read against. */
    private long dueCheckedAt = Long.MIN_VALUE;
    /** Whether service is tallied for {@link #takeReports} (a replica among others); off, nothing is kept for it. */
    private boolean sharing;
    /** Service of lanes dropped since the last report, by tenant, still to be reported. */
    private final Map<String, Long> unsharedGone = new HashMap<>();

    void share() {
        sharing = true;
    }

    long holdAbove() {
        return holdAbove;
    }

    void holdAbove(long counter) {
        holdAbove = counter;
    }

    /** Whether lanes whose next job's promised start is after {@link #dueCheckedAt} wait now. */
    boolean holdingNotDue() {
        return othersDueAt <= dueCheckedAt;
    }

    long dueCheckedAt() {
        return dueCheckedAt;
    }

    long othersDueAt() {
        return othersDueAt;
    }

    /** Another replica's earliest promised start comes at {@code atMs} ({@link HoldBack#othersDueAt}), read at {@code nowMs}. */
    void othersDueAt(long atMs, long nowMs) {
        othersDueAt = atMs;
        dueCheckedAt = nowMs;
    }

    /** {@code lane} of {@code tenant} is dropped: what it was served here and has not reported is kept to report. */
    void dropped(String tenant, Lanes.Lane lane) {
        if (sharing && lane.unshared != 0) unsharedGone.merge(tenant, lane.unshared, (a, b) -> LaneShare.clamp(a + b));
    }

    /**
     * What to report to the other replicas now: every waiting lane, and every lane served (or
     * corrected) since the last report, with that service; the tally starts again from zero.
     * While interactive work waits here ({@code interactiveWaits}), a lane with only batch work is
     * reported as not waiting: it does not go before that work, so the others must not hold back
     * for it. Reported waiting, it was the fleet's lowest lane, every other replica held back for it,
     * and this one held its interactive lanes for theirs: three replicas sent nothing for minutes,
     * the provider idle, until the batch jobs' promises ran out (random worlds, seed 74).
     */
    List<LaneShare.Report> takeReports(Lanes lanes, boolean interactiveWaits) {
        List<LaneShare.Report> out = new ArrayList<>();
        for (Map.Entry<String, Lanes.Lane> e : lanes.all().entrySet()) {
            Lanes.Lane lane = e.getValue();
            long gone = unsharedGone.getOrDefault(e.getKey(), 0L);
            boolean waits = interactiveWaits ? !lane.interactive.isEmpty() : lane.waiting();
            if (lane.waiting() || lane.unshared != 0 || gone != 0) {
                out.add(new LaneShare.Report(e.getKey(), LaneShare.clamp(lane.unshared + gone), waits));
            }
            lane.unshared = 0;
        }
        unsharedGone.forEach((tenant, served) -> {
            if (lanes.get(tenant) == null && served != 0) out.add(new LaneShare.Report(tenant, served, false));
        });
        unsharedGone.clear();
        return out;
    }

    /** A report that never reached the others: its service is reported again next time. */
    void restore(Lanes lanes, List<LaneShare.Report> reports) {
        for (LaneShare.Report r : reports) {
            Lanes.Lane lane = lanes.get(r.tenant());
            if (lane != null) lane.unshared = LaneShare.clamp(lane.unshared + r.served());
            else if (sharing) unsharedGone.merge(r.tenant(), r.served(), (a, b) -> LaneShare.clamp(a + b));
        }
    }

    /**
     * Sets each listed tenant's counter to the fleet's (plus what it was served here since the
     * report that counter answers), so lanes are ordered, here and against other replicas, by
     * what their tenants were served on every replica.
     */
    void rebase(Lanes lanes, Map<String, Long> counters) {
        counters.forEach((tenant, counter) -> {
            Lanes.Lane lane = lanes.get(tenant);
            if (lane != null) lane.served = LaneShare.clamp(counter + lane.unshared);
        });
    }
}
