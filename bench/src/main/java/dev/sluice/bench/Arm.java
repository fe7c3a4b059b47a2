package dev.sluice.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One way to reach the fake provider, and what was measured through it: per rate, the merged
 * histograms of every round, the errors, and the CPU its process (and Redis) spent per request.
 */
final class Arm implements AutoCloseable {
    final String key;
    final String label;
    /** Null for the direct arm, which has no process of its own. */
    final ChildProcess process;

    final OpenLoop load;
    final Map<Double, Measured> byRate = new LinkedHashMap<>();
    boolean active = true;
    /** How long the warm-up took, and whether the JIT had settled by its end. */
    double warmUpSeconds;

    boolean warmedUp;
    /** The rate at which this arm first missed p99 < 5 ms or had errors; 0 while it has not. */
    double firstFailedRate;

    private boolean closed;

    Arm(String key, String label, ChildProcess process, URI url, String apiKey) {
        this.key = key;
        this.label = label;
        this.process = process;
        this.load = new OpenLoop(key, url, apiKey, FakeProvider.REQUEST);
    }

    /** Everything measured at one rate, over every round. */
    static final class Measured {
        final double rate;
        final Histogram latencyUs = new Histogram(OpenLoop.HIGHEST_US, 3);
        final Histogram sendLagUs = new Histogram(OpenLoop.HIGHEST_US, 3);
        final Map<String, Long> failures = new LinkedHashMap<>();
        final List<Double> roundP99Ms = new ArrayList<>();
        long sent;
        long ok;
        long errors;
        double seconds;
        /** What the slices cost, added up (CPU of each process, Redis commands, wall clock): see {@link Readings}. */
        Readings cost = Readings.ZERO;
        /** The 1-minute load average at the end of each slice. */
        final List<Double> load1PerRound = new ArrayList<>();

        Measured(double rate) {
            this.rate = rate;
        }

        void add(OpenLoop.Step step, Readings sliceCost, double load1) {
            cost = cost.plus(sliceCost);
            load1PerRound.add(load1);
            latencyUs.add(step.latencyUs());
            sendLagUs.add(step.sendLagUs());
            step.failures().forEach((k, v) -> failures.merge(k, v, Long::sum));
            roundP99Ms.add(step.latencyUs().getValueAtPercentile(99) / 1000.0);
            sent += step.sent();
            ok += step.ok();
            errors += step.errors();
            seconds += step.seconds();
        }

        double ms(double percentile) {
            return latencyUs.getValueAtPercentile(percentile) / 1000.0;
        }

        double maxMs() {
            return latencyUs.getMaxValue() / 1000.0;
        }

        boolean passes() {
            return sent > 0 && errors == 0 && ms(99) < OverheadBenchmark.P99_LIMIT_MS;
        }

        double perRequestUs(long ns) {
            return Readings.perRequestUs(ns, sent);
        }

        double perRequest(long count) {
            return Readings.perRequest(count, sent);
        }

        /** The mean 1-minute load average over this rate's slices. */
        double meanLoad1() {
            return load1PerRound.stream()
                    .mapToDouble(Double::doubleValue)
                    .filter(x -> x >= 0)
                    .average()
                    .orElse(Double.NaN);
        }

        Curves.Point point() {
            return new Curves.Point(rate, ms(50), ms(99), passes(), sent, cost.redisEvalsha());
        }
    }

    Measured at(double rate) {
        return byRate.computeIfAbsent(rate, Measured::new);
    }

    /** The highest rate passed with every lower rate passed too; 0 when none. */
    double highestSustained() {
        return curve().highestSustained();
    }

    Curves.Curve curve() {
        return new Curves.Curve(
                key, label, byRate.values().stream().map(Measured::point).toList());
    }

    /** Stops the arm's process and its load generator's connections; the figures stay. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        load.close();
        if (process != null) process.close();
    }
}
