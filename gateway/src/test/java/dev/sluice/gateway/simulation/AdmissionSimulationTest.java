package dev.sluice.gateway.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Admission tested as the best storage systems test themselves (FoundationDB's simulation,
 * TigerBeetle's VOPR): random worlds, one per seed, run whole on a simulated clock through the
 * production classes, and the invariants checked after each ({@link Invariants}). Each seed's
 * one-line summary is printed; a failing seed prints its world and its findings and replays
 * exactly. See docs/simulation.md.
 * <ul>
 * <li>{@code -Dsluice.sim.seed=N}: that seed only (with {@code -Dsluice.sim.trace=file}, its
 * events written there, one a line).</li>
 * <li>{@code -Dsluice.sim.seeds=K} (and {@code -Dsluice.sim.from=F}, default 1): a soak of K
 * seeds from F.</li>
 * <li>Otherwise the CI budget: {@link #CI_SEEDS} seeds from 1.</li>
 * <li>{@code -Dsluice.sim.strict=true}: the known findings ({@link Invariants.Known}) fail a run too.</li>
 * </ul>
 */
class AdmissionSimulationTest {
    /** The seeds CI runs: about a minute on a two-core machine. */
    static final int CI_SEEDS = 100;

    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS) // a soak's; the CI budget takes about a minute
    void randomWorldsKeepTheInvariants() {
        List<Long> seeds = seeds();
        Path trace =
                System.getProperty("sluice.sim.trace") == null ? null : Path.of(System.getProperty("sluice.sim.trace"));
        boolean strict = Boolean.getBoolean("sluice.sim.strict");
        List<String> failed = new ArrayList<>();
        List<String> reported = new ArrayList<>();
        int known = 0;
        long simulated = 0;
        long cpu = 0;
        long promised = 0;
        long kept = 0;
        java.util.Map<String, Integer> missed = new java.util.TreeMap<>();
        for (long seed : seeds) {
            Simulation.Result r = Simulation.run(World.draw(seed), seeds.size() == 1 ? trace : null);
            simulated += r.simulatedMs();
            cpu += r.cpuMs();
            promised += r.report().promise().kept() + r.report().promise().missed();
            kept += r.report().promise().kept();
            r.report().promise().missKinds().forEach((k, n) -> missed.merge(k, n, Integer::sum));
            System.out.println("[sim] " + r.line());
            boolean holds = strict ? r.holdsStrictly() : r.holds();
            if (!holds || seeds.size() == 1) System.out.print(Invariants.details(r));
            if (!r.report().known().isEmpty()) known++;
            if (!holds)
                failed.add("seed " + seed + ": " + (r.thrown() != null ? "threw " + r.thrown() + "; " : "")
                        + String.join("; ", r.report().hard())
                                .lines()
                                .findFirst()
                                .orElse(""));
            if (!r.report().soft().isEmpty())
                reported.add(
                        "seed " + seed + ": " + String.join("; ", r.report().soft()));
        }
        System.out.printf(
                "[sim] %d seed(s): %.0f simulated minutes in %.1f s of CPU (%.0f simulated minutes per CPU second); "
                        + "(a)-(d), (g) failed in %d, known findings in %d, (e)/(f) reported in %d%n",
                seeds.size(),
                simulated / 60_000.0,
                cpu / 1000.0,
                (simulated / 60_000.0) / Math.max(0.001, cpu / 1000.0),
                failed.size(),
                known,
                reported.size());
        long broken = missed.entrySet().stream()
                .filter(e -> BusyKind.brokenAfterAWait(e.getKey()))
                .mapToLong(java.util.Map.Entry::getValue)
                .sum();
        System.out.printf(
                "[sim] the door's promise over all seeds: %d of %d kept (%.2f%%), %d broken after a wait (%.2f%%); missed %s%n",
                kept,
                promised,
                promised == 0 ? 100.0 : 100.0 * kept / promised,
                broken,
                promised == 0 ? 0.0 : 100.0 * broken / promised,
                missed);
        reported.forEach(r ->
                System.out.println("[sim] reported " + r.lines().findFirst().orElse("")));
        assertThat(failed)
                .as("seeds whose run broke (a)-(d) or (g)" + (strict ? " or showed a known finding" : "")
                        + "; replay one with -Dsluice.sim.seed=N")
                .isEmpty();
    }

    /** A failing seed is only useful if it fails again, the same way: the whole trace, event by event. */
    @Test
    void aSeedReplaysExactly() {
        long seed = Long.getLong("sluice.sim.seed", 3);
        Simulation.Result first = Simulation.run(World.draw(seed), null);
        Simulation.Result again = Simulation.run(World.draw(seed), null);
        System.out.println("[sim] replay: " + first.line());
        assertThat(first.events()).isGreaterThan(10_000);
        assertThat(again.events()).isEqualTo(first.events());
        assertThat(again.digest()).as("the trace's digest").isEqualTo(first.digest());
        assertThat(again.report().summary()).isEqualTo(first.report().summary());
    }

    /**
     * A run installs its virtual clock as every Reactor scheduler; the tests after it in the same
     * JVM hold the real ones (cached Spring contexts took them when they were built): they must
     * come back as they were, running.
     */
    @Test
    void aRunLeavesTheJvmsSchedulersAsItFoundThem() {
        Scheduler parallel = Schedulers.parallel();
        Scheduler single = Schedulers.single();
        Simulation.run(World.saturating(2), null);
        assertThat(Schedulers.parallel()).isSameAs(parallel);
        assertThat(Schedulers.single()).isSameAs(single);
        assertThat(parallel.isDisposed()).isFalse();
        assertThat(Mono.delay(Duration.ofMillis(5)).block(Duration.ofSeconds(5)))
                .isZero(); // real time again
    }

    /** The checks can fail: the same saturated world holds (a) honest, and is caught over the limits told a third more. */
    @Test
    void aGatewayToldMoreThanTheProvidersAdmitIsCaughtOverTheirLimits() {
        Simulation.Result honest = Simulation.run(World.saturating(1), null);
        Simulation.Result lied = Simulation.run(World.saturating(1).withGatewayTold(1.35), null);
        System.out.println("[sim] saturated, honest: " + honest.line());
        System.out.println("[sim] saturated, told 1.35x: " + lied.line());
        assertThat(honest.report().hard()).noneMatch(f -> f.startsWith("(a)"));
        assertThat(lied.report().hard()).anyMatch(f -> f.startsWith("(a)"));
    }

    /**
     * Simulation finding 3: a provider that counts 1.3 times the estimate, past what the default
     * ratio and the headroom cover (1.25 / 0.97 = 1.289), is overrun twice by a minute of small
     * pages sent at once: as they are sent, before any answer has taught the ratio (the default's
     * documented reach), and a minute later, when the pages that waited in line meanwhile go out:
     * each is still charged at the ratio of the moment it joined the line, not the one learned since.
     */
    @Test
    @Disabled(
            "simulation finding 3 (docs/simulation.md): a job waiting in line keeps the ratio it was charged at when it "
                    + "joined; enable with a fix")
    void jobsThatWaitedInLineAreChargedAtTheRatioLearnedMeanwhile() {
        Simulation.Result r = Simulation.run(World.calibrationEdge(), null);
        System.out.println("[sim] calibration edge: " + r.line());
        assertThat(r.violations())
                .as("calls over the provider's limits once its first answers are in")
                .noneMatch(v -> v.atMs() > 10_000);
    }

    private static List<Long> seeds() {
        List<Long> out = new ArrayList<>();
        Long one = Long.getLong("sluice.sim.seed");
        if (one != null) {
            out.add(one);
            return out;
        }
        long from = Long.getLong("sluice.sim.from", 1);
        int count = Integer.getInteger("sluice.sim.seeds", CI_SEEDS);
        for (long s = from; s < from + count; s++) out.add(s);
        return out;
    }
}
