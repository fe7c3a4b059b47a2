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
        /** CPU of the arm's threads other than the JIT compiler's. */
        long armCpuNs;
        /** CPU of the arm's JIT compiler threads: near zero once the arm is warm. */
        long jitCpuNs;
        long redisCpuNs;
        long providerCpuNs;
        long driverCpuNs;
        long redisCalls;
        long redisEvalsha;

        Measured(double rate) {
            this.rate = rate;
        }

        void add(OpenLoop.Step step) {
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
            return sent == 0 || ns < 0 ? Double.NaN : ns / 1000.0 / sent;
        }
    }

    Measured at(double rate) {
        return byRate.computeIfAbsent(rate, Measured::new);
    }

    /** The highest rate passed with every lower rate passed too; 0 when none. */
    double highestSustained() {
        double best = 0;
        for (Measured m : byRate.values()) {
            if (!m.passes()) break;
            best = m.rate;
        }
        return best;
    }

    @Override
    public void close() {
        load.close();
        if (process != null) process.close();
    }
}
