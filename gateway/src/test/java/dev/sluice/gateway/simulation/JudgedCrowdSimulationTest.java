package dev.sluice.gateway.simulation;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The independent tester's crowd ({@code JudgedRun}) in simulated time, one replica and two: the
 * figures the judged run measures on the packaged gateway (pages served per tenant and their
 * Jain index, promises kept, the provider's busiest minute), in seconds instead of minutes, so
 * that a change to the door or the fair queue can be tried against that crowd at once.
 */
class JudgedCrowdSimulationTest {

    @Test
    void theJudgedCrowd() {
        long seeds = Long.getLong("sluice.sim.judged.seeds", 3);
        String trace =
                System.getProperty("sluice.sim.trace"); // with one seed and -Dsluice.sim.judged.replicas=N: its events
        List<Integer> replicaCounts = Integer.getInteger("sluice.sim.judged.replicas") == null
                ? List.of(1, 2)
                : List.of(Integer.getInteger("sluice.sim.judged.replicas"));
        for (int replicas : replicaCounts) {
            double jainSum = 0;
            double jainMin = 1;
            long served = 0;
            long broken = 0;
            long promised = 0;
            for (long seed = 1; seed <= seeds; seed++) {
                Simulation.Result r = Simulation.run(
                        World.judgedCrowd(seed, replicas, 1_000, 90_000),
                        trace == null ? null : java.nio.file.Path.of(trace));
                List<Long> pages = List.copyOf(r.servedPerTenant().values());
                System.out.printf(
                        "[judged-sim] replicas %d seed %d: served %s (Jain %.4f); promise %d of %d kept, missed %s; %s%n",
                        replicas,
                        seed,
                        pages,
                        jain(pages),
                        r.report().promise().kept(),
                        r.report().promise().kept() + r.report().promise().missed(),
                        r.report().promise().missKinds(),
                        r.report().providers());
                jainSum += jain(pages);
                jainMin = Math.min(jainMin, jain(pages));
                served += pages.stream().mapToLong(Long::longValue).sum();
                promised += r.report().promise().kept() + r.report().promise().missed();
                broken += r.report().promise().missKinds().entrySet().stream()
                        .filter(e -> e.getKey().contains("CANNOT_MAKE_IT")
                                || e.getKey().contains("WAITED_TOO_LONG")
                                || e.getKey().equals("late"))
                        .mapToLong(java.util.Map.Entry::getValue)
                        .sum();
            }
            System.out.printf(
                    "[judged-sim] replicas %d over %d seeds: Jain mean %.4f, min %.4f; pages served %d; broken after a wait %d of %d%n",
                    replicas, seeds, jainSum / seeds, jainMin, served, broken, promised);
        }
    }

    static double jain(List<Long> xs) {
        double sum = 0;
        double squares = 0;
        for (long x : xs) {
            sum += x;
            squares += (double) x * x;
        }
        return squares == 0 ? 1 : sum * sum / (xs.size() * squares);
    }
}
