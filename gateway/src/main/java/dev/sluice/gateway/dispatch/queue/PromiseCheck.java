package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.queue.Door.Capacity;
import dev.sluice.gateway.dispatch.queue.SendTime.Schedules;
import java.util.ArrayList;
import java.util.List;

/**
 * The door's promises check: admitting a job promises it a start before its deadline, and a
 * candidate whose fair turn comes before jobs admitted earlier may go first only where that
 * breaks no firm promise. A promise still in its soft span ({@link Door#softForMs}) gives way
 * instead, answered at once, so a burst is shared fairly whatever the order its calls reached
 * the door in.
 */
final class PromiseCheck {
    private final FairQueue queue;

    PromiseCheck(FairQueue queue) {
        this.queue = queue;
    }

    /**
     * A job queued behind the candidate's fair turn, predicted to start in time without it and
     * late with it, is "pushed". Pushing only jobs admitted within {@link Door#softForMs}: they
     * are displaced. Pushing a firm one: the candidate goes right behind the last firm job it
     * would push (its turn deferred, see {@link DoorDecision#turnAtLeast}), if it can still
     * start within its own wait there; otherwise it is refused. Inserting the candidate
     * anywhere before a job delays that job by the same amount, so which jobs it pushes does
     * not depend on where it goes.
     */
    DoorDecision keep(Job job, Capacity capacity, long maxWaitMs, long nowMs, DoorDecision accepted) {
        List<FairQueue.Turn> order = queue.turns();
        int fair = accepted.position() - 1; // its index among the queued jobs in fair order
        Capacity own = capacity.forClass(job.jobClass(), queue.interactiveFloor());
        Capacity batch = capacity.forClass(JobClass.BATCH, queue.interactiveFloor());
        // Both capacities share one window and one set of calls: their schedules are indexed once for every estimate
        // below.
        Schedules schedules = Schedules.of(capacity);
        int lastFirm = -1;
        record Pushed(int index, DoorDecision.Displaced displaced) {}
        List<Pushed> pushedInBurst = new ArrayList<>();
        int jobs = 0;
        long tokens = 0;
        int[] jobsAt = new int[order.size() + 1];
        long[] tokensAt = new long[order.size() + 1];
        for (int i = 0; i < order.size(); i++) {
            Job j = order.get(i).job();
            Capacity c = j.jobClass() == JobClass.BATCH ? batch : capacity;
            jobsAt[i] = jobs;
            tokensAt[i] = tokens;
            if (i >= fair) {
                long allowed = Door.longestPromisedMs(j.deadlineMs() - nowMs);
                long without = SendTime.estimateWaitMs(j.tokens(), new WorkAhead(jobs, tokens), c, schedules);
                long with = SendTime.estimateWaitMs(
                        j.tokens(), new WorkAhead(jobs + 1, LaneShare.clamp(tokens + job.tokens())), c, schedules);
                if (without <= allowed && with > allowed) {
                    if (Door.soft(j, nowMs)) pushedInBurst.add(new Pushed(i, new DoorDecision.Displaced(j, with)));
                    else lastFirm = i;
                }
            }
            jobs++;
            tokens = LaneShare.clamp(tokens + j.tokens());
        }
        jobsAt[order.size()] = jobs;
        tokensAt[order.size()] = tokens;
        int at = lastFirm < 0 ? fair : lastFirm + 1;
        List<DoorDecision.Displaced> displaced = new ArrayList<>();
        for (Pushed p : pushedInBurst) {
            if (p.index() >= at) displaced.add(p.displaced()); // ahead of where the candidate goes: not pushed
        }
        if (lastFirm < 0) {
            return new DoorDecision(
                    DoorDecision.Verdict.ACCEPT,
                    accepted.position(),
                    accepted.estimatedWaitMs(),
                    0,
                    displaced,
                    Long.MIN_VALUE);
        }
        long wait = Math.max(
                accepted.estimatedWaitMs(),
                SendTime.estimateWaitMs(job.tokens(), new WorkAhead(jobsAt[at], tokensAt[at]), own, schedules));
        long promised = Door.longestPromisedMs(maxWaitMs);
        if (wait > promised) {
            // Asking again when the wait behind those promises is one the door promises: what is ahead of that
            // place drains meanwhile (telling it to wait for the end of the whole line sent every tenant away
            // for a minute, and the next minute went to whoever came back first).
            return new DoorDecision(
                    DoorDecision.Verdict.BUSY, accepted.position(), wait, Math.max(1_000, wait - promised));
        }
        return new DoorDecision(
                DoorDecision.Verdict.ACCEPT,
                at + 1,
                wait,
                0,
                displaced,
                order.get(lastFirm).tag() + 1);
    }

    /**
     * The promises not yet firm (made within {@link Door#softForMs}, or at or after
     * {@code confirmedBeforeMs}, on views older than those in hand), estimated again on the budget
     * as the store now has it: those that no longer start within their deadline, in service order,
     * with the wait each would now have. Each one that gives way no longer counts ahead of the
     * ones behind it. A door's view of a budget other replicas spend from is as old as its last store call;
     * when the store shows their sends of the same moment, what was promised on the older view is
     * decided again before its caller has waited.
     */
    List<DoorDecision.Displaced> review(Capacity capacity, long nowMs, long confirmedBeforeMs, Owed owed) {
        List<DoorDecision.Displaced> out = new ArrayList<>();
        List<FairQueue.Turn> order = queue.turns();
        Capacity batch = capacity.forClass(JobClass.BATCH, queue.interactiveFloor());
        Schedules schedules = Schedules.of(capacity);
        int jobs = 0;
        long tokens = 0;
        for (FairQueue.Turn turn : order) {
            Job j = turn.job();
            if (Door.soft(j, nowMs) || j.enqueuedAtMs() >= confirmedBeforeMs) {
                Capacity c = j.jobClass() == JobClass.BATCH ? batch : capacity;
                WorkAhead ahead = owed.ahead(j, turn.tag(), new WorkAhead(jobs, tokens));
                long wait = SendTime.estimateWaitMs(j.tokens(), ahead, c, schedules);
                if (wait > Door.longestPromisedMs(j.deadlineMs() - nowMs)) {
                    out.add(new DoorDecision.Displaced(j, wait));
                    continue;
                }
            }
            jobs++;
            tokens = LaneShare.clamp(tokens + j.tokens());
        }
        return out;
    }

    /** The work a door expects ahead of a queued job beyond its own line ({@link ExpectedDemand}). */
    @FunctionalInterface
    interface Owed {
        WorkAhead ahead(Job job, long turn, WorkAhead inLine);
    }
}
