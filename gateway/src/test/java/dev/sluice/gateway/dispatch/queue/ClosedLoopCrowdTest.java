package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An independent tester's crowd, in simulated time: six equal tenants each upload a book of 100
 * pages (810 tokens) at once, with no retry of what the door refuses; each uploads its next book
 * 1 s after the last page of the previous one was answered or refused, for 90 s; seed 000's
 * provider after headroom, 2 s a call. Each book's pages reach the door in a random order,
 * interleaved with the other tenants' over {@code spreadMs} (a burst over HTTP is not one
 * instant). Before the door kept its promises and remembered who will be back, this crowd got
 * Jain 0.77–0.97 and hundreds of pages that were admitted and then waited a minute for nothing.
 */
class ClosedLoopCrowdTest {
    static final BudgetLimits SEED_AFTER_HEADROOM = FairOverARunTest.SEED_AFTER_HEADROOM;
    static final long CALL_MS = 2_000;
    static final long RUN_MS = 90_000;
    static final long MAX_WAIT_MS = 60_000;
    static final int TENANTS = 6;
    static final int BOOK = 100;
    static final int PAGE_TOKENS = 810;

    record Outcome(int[] served, int[] refused, int admittedThenExpired, int displaced, int admitted) {
        double jain() {
            return DispatchSimulation.jain(
                    Arrays.stream(served).asDoubleStream().toArray());
        }
    }

    @ParameterizedTest(name = "seed {0}, pages spread over {1} ms")
    @CsvSource({"1, 0", "2, 100", "3, 300", "4, 300", "5, 500"})
    void equalTenantsAreServedEquallyAndNoAdmittedPageExpires(long seed, long spreadMs) {
        Outcome o = run(seed, spreadMs);
        System.out.printf(
                "[closed-loop] seed %d spread %d ms: served %s refused %s, Jain %.4f, admitted %d, expired after admission %d, displaced %d%n",
                seed,
                spreadMs,
                Arrays.toString(o.served()),
                Arrays.toString(o.refused()),
                o.jain(),
                o.admitted(),
                o.admittedThenExpired(),
                o.displaced());
        assertThat(Arrays.stream(o.served()).sum()).as("the provider kept busy").isGreaterThan(2 * 360);
        assertThat(o.jain()).as("Jain over pages served").isGreaterThanOrEqualTo(0.99);
        assertThat(o.admittedThenExpired())
                .as("pages admitted that then waited past their deadline")
                .isZero();
    }

    static Outcome run(long seed, long spreadMs) {
        SplittableRandom random = new SplittableRandom(seed);
        FairQueue queue = FairQueue.forBudget(10_000, 0.1, SEED_AFTER_HEADROOM.tokensPerMinute());
        Door door = new Door(queue);
        DispatchSimulation sim = new DispatchSimulation(queue, SEED_AFTER_HEADROOM, CALL_MS);
        int[] outstanding = new int[TENANTS];
        int[] served = new int[TENANTS];
        int[] refused = new int[TENANTS];
        boolean[] inBook = new boolean[TENANTS];
        long[] nextBookAt = new long[TENANTS];
        Map<String, Integer> tenantOf = new HashMap<>();
        List<long[]> arrivals = new ArrayList<>(); // {at, tenant}
        List<long[]> calls = new ArrayList<>(); // {ends at, tenant}
        int seen = 0;
        int ids = 0;
        int expired = 0;
        int displaced = 0;
        int admitted = 0;
        for (long now = 0;
                now < RUN_MS || !calls.isEmpty() || queue.depth() > 0 || !arrivals.isEmpty();
                now += DispatchSimulation.TICK_MS) {
            sim.nowMs = now;
            for (var it = calls.iterator(); it.hasNext(); ) {
                long[] call = it.next();
                if (call[0] > now) continue;
                served[(int) call[1]]++;
                outstanding[(int) call[1]]--;
                it.remove();
            }
            for (Job e : queue.expire(now)) {
                outstanding[tenantOf.get(e.id())]--;
                expired++;
            }
            for (int t = 0; t < TENANTS; t++) {
                if (inBook[t] && outstanding[t] == 0) {
                    inBook[t] = false;
                    nextBookAt[t] = now + 1_000;
                }
                if (inBook[t] || now < nextBookAt[t] || now >= RUN_MS) continue;
                inBook[t] = true;
                for (int p = 0; p < BOOK; p++) {
                    arrivals.add(new long[] {now + (spreadMs == 0 ? 0 : random.nextLong(spreadMs + 1)), t});
                    outstanding[t]++;
                }
            }
            // This tick's arrivals in a random order: who reaches the door first is chance.
            List<long[]> due = new ArrayList<>();
            for (var it = arrivals.iterator(); it.hasNext(); ) {
                long[] a = it.next();
                if (a[0] < now + DispatchSimulation.TICK_MS) {
                    due.add(a);
                    it.remove();
                }
            }
            for (int i = due.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                long[] x = due.get(i);
                due.set(i, due.get(j));
                due.set(j, x);
            }
            for (long[] a : due) {
                int t = (int) a[1];
                Job job = Job.of("j" + ++ids, "t" + t, 1, JobClass.INTERACTIVE, PAGE_TOKENS, now, now + MAX_WAIT_MS);
                tenantOf.put(job.id(), t);
                DoorDecision d = door.admit(
                        job,
                        Door.Capacity.of(sim.budget.snapshot(SEED_AFTER_HEADROOM, now), CALL_MS),
                        MAX_WAIT_MS,
                        now);
                for (DoorDecision.Displaced gone : d.displaced()) {
                    Job v = gone.job();
                    queue.remove(v.id());
                    int vt = tenantOf.get(v.id());
                    outstanding[vt]--;
                    refused[vt]++;
                    displaced++;
                }
                if (d.accepted()) {
                    queue.enqueue(job, d.turnAtLeast());
                    admitted++;
                } else {
                    door.asked(job, now);
                    outstanding[t]--;
                    refused[t]++;
                }
            }
            sim.step();
            for (; seen < sim.sent.size(); seen++) {
                calls.add(new long[] {
                    now + CALL_MS, tenantOf.get(sim.sent.get(seen).job().id())
                });
            }
        }
        return new Outcome(served, refused, expired, displaced, admitted);
    }
}
