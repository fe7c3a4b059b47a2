package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.BudgetView;
import dev.sluice.gateway.dispatch.queue.FairQueue;
import dev.sluice.gateway.dispatch.queue.HoldBack;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.dispatch.queue.memory.InMemoryLaneShare;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/**
 * Two replicas' fair queues in simulated time, drawing on one provider whose calls in flight
 * bind (20 slots, 500 ms a call), sharing their counters through {@link InMemoryLaneShare} as
 * {@link LaneSharing} does (a tick every 200 ms, TTL 1 s) and holding back as {@link HoldBack}
 * says. Replica a always reaches a freed slot first, as the replica whose own call ended does.
 */
class FairAcrossReplicasTest {
    static final long STEP_MS = 50;
    static final long TICK_MS = 200;
    static final long TTL_MS = 1_000;
    static final long CALL_MS = 500;
    static final int SLOTS = 20;
    static final long PAGE = 800;
    static final long TPM = 120_000;

    final LaneShare share = new InMemoryLaneShare();
    final Map<String, Long> served = new HashMap<>();
    final PriorityQueue<Long> running = new PriorityQueue<>();
    long nowMs;
    int ids;

    final class Replica {
        final String name;
        final FairQueue queue = FairQueue.forBudget(100_000, 0.1, TPM);
        final boolean sharing;
        HoldBack hold = HoldBack.NONE;
        boolean alive = true;

        Replica(String name, boolean sharing, String... tenants) {
            this.name = name;
            this.sharing = sharing;
            if (sharing) queue.shareWithOtherReplicas();
            for (String t : tenants)
                for (int i = 0; i < 2_000; i++)
                    queue.enqueue(Job.of("j" + ++ids, t, 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        }

        void tick() {
            if (!sharing || !alive) return;
            List<LaneShare.Report> reports = queue.takeReports();
            LaneShare.View view = share.publish(
                            "lab:*", name, nowMs, reports, List.of(), new LaneShare.Terms(TTL_MS, queue.credit()))
                    .block(Duration.ofSeconds(1));
            queue.rebase(view.counters());
            hold = HoldBack.of(view.othersLowest(), nowMs, HoldBack.slackFor(TPM), TTL_MS);
        }

        int dispatch() {
            if (!alive) return 0;
            int sent = 0;
            queue.holdAbove(hold.aboveAt(nowMs));
            while (running.size() < SLOTS) {
                var job = queue.next(
                        new BudgetView(Long.MAX_VALUE / 4, 0, Long.MAX_VALUE / 4, 0, SLOTS, running.size(), false));
                if (job.isEmpty()) break;
                running.add(nowMs + CALL_MS);
                served.merge(job.get().tenant(), job.get().tokens(), Long::sum);
                sent++;
            }
            return sent;
        }
    }

    /** Runs both replicas for {@code ms}; returns the calls each sent. */
    int[] run(Replica a, Replica b, long ms) {
        int[] sent = new int[2];
        for (long end = nowMs + ms; nowMs < end; nowMs += STEP_MS) {
            while (!running.isEmpty() && running.peek() <= nowMs) running.poll();
            if (nowMs % TICK_MS == 0) {
                a.tick();
                b.tick();
            }
            sent[0] += a.dispatch();
            sent[1] += b.dispatch();
        }
        return sent;
    }

    double jain(String... tenants) {
        List<Long> xs = new ArrayList<>();
        for (String t : tenants) xs.add(served.getOrDefault(t, 0L));
        double sum = 0;
        double squares = 0;
        for (long x : xs) {
            sum += x;
            squares += (double) x * x;
        }
        return sum * sum / (xs.size() * squares);
    }

    @Test
    void aLoneTenantOnOneReplicaGetsItsShareNotHalfTheProvider() {
        Replica a = new Replica("a", true, "lone");
        Replica b = new Replica("b", true, "t2", "t3", "t4", "t5", "t6");
        run(a, b, 60_000);
        double jain = jain("lone", "t2", "t3", "t4", "t5", "t6");
        System.out.printf("[fair-across-replicas] shared, 1 vs 5: served %s, Jain %.4f%n", served, jain);
        assertThat(jain).isGreaterThanOrEqualTo(0.99);
    }

    @Test
    void withoutSharingEachReplicaIsFairOnlyAmongItsOwn() {
        Replica a = new Replica("a", false, "lone");
        Replica b = new Replica("b", false, "t2", "t3", "t4", "t5", "t6");
        run(a, b, 60_000);
        double jain = jain("lone", "t2", "t3", "t4", "t5", "t6");
        System.out.printf("[fair-across-replicas] not shared, 1 vs 5: served %s, Jain %.4f%n", served, jain);
        assertThat(jain).isLessThan(0.5);
    }

    @Test
    void aReplicaThatDiesHoldsNoOneBackPastTheTtl() {
        Replica a = new Replica("a", true, "lone");
        Replica b = new Replica("b", true, "t2", "t3", "t4", "t5", "t6");
        run(a, b, 10_000);
        b.alive = false; // its lanes stay "waiting" in the store until the TTL says otherwise
        run(a, b, TTL_MS + TICK_MS + CALL_MS);
        int[] after = run(a, b, 5_000);
        assertThat(after[0])
                .as("a alone fills every slot: 20 per 500 ms for 5 s")
                .isGreaterThanOrEqualTo(190);
    }

    @Test
    void whenTheOtherReplicaDrainsNothingIsHeldBack() {
        Replica a = new Replica("a", true, "lone");
        Replica b = new Replica("b", true);
        b.queue.enqueue(Job.of("few", "t2", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        run(a, b, 2_000);
        int[] after = run(a, b, 5_000);
        assertThat(after[0]).isGreaterThanOrEqualTo(190);
    }
}
