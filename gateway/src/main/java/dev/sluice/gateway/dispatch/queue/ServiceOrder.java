package dev.sluice.gateway.dispatch.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The fair queue's service order as the counters predict it, for the door: each job's turn, the
 * counter at which a newcomer's would come, the work ahead of a job, and which job makes room
 * when the queue is full. It only reads the lanes (a lane's start, {@link Lanes#startOf},
 * advances the floor as every reading of it does).
 */
final class ServiceOrder {
    private final Lanes lanes;

    ServiceOrder(Lanes lanes) {
        this.lanes = lanes;
    }

    /**
     * Every queued job ({@code depth} of them) in predicted service order with the counter at
     * which its turn comes: interactive before batch; within a class, by the lane's counter at
     * the job (the counter now plus what its lane has ahead of it), ties to the older lane. One
     * pass and a sort.
     */
    List<FairQueue.Turn> turns(int depth) {
        record Tagged(Job job, long tag, int lane) {}
        List<Tagged> all = new ArrayList<>(depth);
        int age = 0;
        for (Lanes.Lane lane : lanes.all().values()) {
            long tag = lane.served;
            for (Job j : lane.interactive) {
                tag = lanes.turnOf(tag, j);
                all.add(new Tagged(j, tag, age));
                tag += Lanes.cost(j);
            }
            for (Job j : lane.batch) {
                tag = lanes.turnOf(tag, j);
                all.add(new Tagged(j, tag, age));
                tag += Lanes.cost(j);
            }
            age++;
        }
        all.sort(Comparator.comparing((Tagged t) -> t.job().jobClass())
                .thenComparingLong(Tagged::tag)
                .thenComparingInt(Tagged::lane));
        List<FairQueue.Turn> order = new ArrayList<>(all.size());
        for (Tagged t : all) order.add(new FairQueue.Turn(t.job(), t.tag()));
        return order;
    }

    /**
     * The counter at which {@code candidate} would be served were it enqueued now: its lane's
     * start plus everything its lane has ahead of it, in counter units.
     */
    long tagOf(Job candidate) {
        Lanes.Lane own = lanes.get(candidate.tenant());
        long tag = lanes.startOf(own);
        if (own != null) {
            if (candidate.jobClass() == JobClass.BATCH)
                for (Job j : own.interactive) tag = lanes.turnOf(tag, j) + Lanes.cost(j);
            for (Job j : own.of(candidate.jobClass())) tag = lanes.turnOf(tag, j) + Lanes.cost(j);
        }
        return tag;
    }

    /** The counter at which {@code tenant}'s lane starts, before what it has queued. */
    long headTagOf(String tenant) {
        return lanes.startOf(lanes.get(tenant));
    }

    /**
     * The counter at which {@code tenant}'s next call would start behind what it has queued:
     * where a call it sent now would start, after its queued ones.
     */
    long tailTagOf(String tenant) {
        Lanes.Lane lane = lanes.get(tenant);
        long tag = lanes.startOf(lane);
        if (lane == null) return tag;
        for (Job j : lane.interactive) tag = lanes.turnOf(tag, j) + Lanes.cost(j);
        for (Job j : lane.batch) tag = lanes.turnOf(tag, j) + Lanes.cost(j);
        return tag;
    }

    /**
     * The work ahead of {@code target} in service order: queued ({@code queuedNow}), or were it
     * enqueued now. Simulates the counters forward: a job of lane M goes before the target
     * while M's counter at that job is below the target's (or equal, for lanes older than the
     * target's, which win ties). A batch target also has every interactive job ahead of it.
     */
    WorkAhead ahead(Job target, boolean queuedNow) {
        JobClass c = target.jobClass();
        Lanes.Lane own = lanes.get(target.tenant());
        Ahead ahead = new Ahead();
        long finish = lanes.startOf(own); // the counter at the target's turn
        if (own != null) {
            if (c == JobClass.BATCH) finish = ahead.all(own.interactive, finish);
            for (Job j : own.of(c)) {
                if (queuedNow && j.id().equals(target.id())) break;
                finish = ahead.at(j, lanes.turnOf(finish, j));
            }
        }
        if (queuedNow) finish = lanes.turnOf(finish, target);
        boolean older = true;
        for (Lanes.Lane lane : lanes.all().values()) {
            if (lane == own) {
                older = false;
                continue;
            }
            long tag = lane.served;
            if (c == JobClass.BATCH) tag = ahead.all(lane.interactive, tag);
            for (Job j : lane.of(c)) {
                long turn = lanes.turnOf(tag, j);
                if (turn > finish || (turn == finish && !older)) break;
                tag = ahead.at(j, turn);
            }
        }
        return new WorkAhead(ahead.jobs, ahead.tokens);
    }

    /** The work counted ahead of a target, job by job, as {@link ServiceOrder#ahead} walks the lanes. */
    private final class Ahead {
        int jobs;
        long tokens;

        /** Counts {@code j}, whose turn comes at {@code turn}; its lane's counter after it. */
        long at(Job j, long turn) {
            jobs++;
            tokens += j.tokens();
            return turn + Lanes.cost(j);
        }

        /** Counts every job of {@code queued} (all ahead of a batch target); the lane's counter after them. */
        long all(Iterable<Job> queued, long tag) {
            for (Job j : queued) tag = at(j, lanes.turnOf(tag, j));
            return tag;
        }
    }

    /**
     * In a full queue, the job that makes room for {@code candidate}: the last, in service
     * order, of the longest lane (longest-queue drop), if the candidate's tenant holds at least
     * two jobs fewer, so that after the swap it holds no more than the lane it took the place
     * from. Ties go to the lane furthest ahead in service (highest counter), then the newer.
     */
    Optional<Job> victimFor(Job candidate) {
        Lanes.Lane own = lanes.get(candidate.tenant());
        int ownSize = own == null ? 0 : own.size();
        Lanes.Lane longest = null;
        for (Lanes.Lane lane : lanes.all().values()) {
            if (lane == own || !lane.waiting()) continue;
            if (longest == null
                    || lane.size() > longest.size()
                    || (lane.size() == longest.size() && lane.served >= longest.served)) longest = lane;
        }
        if (longest == null || ownSize + 1 >= longest.size()) return Optional.empty();
        return Optional.of(longest.batch.isEmpty() ? longest.interactive.peekLast() : longest.batch.peekLast());
    }
}
