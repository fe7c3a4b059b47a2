package dev.sluice.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The benchmark's tables (stdout) and JSON: per arm and rate, and the summary against the direct arm. */
final class Report {
    private final List<Arm> arms;
    private final List<Double> rates;
    private final Map<String, Object> settings;
    private final Map<String, Object> machine;
    private final Map<String, Object> sluiceCounters;
    private final Arm direct;

    Report(List<Arm> arms, List<Double> rates, Map<String, Object> settings, Map<String, Object> machine,
           Map<String, Object> sluiceCounters) {
        this.arms = arms;
        this.rates = rates;
        this.settings = settings;
        this.machine = machine;
        this.sluiceCounters = sluiceCounters;
        this.direct = arms.get(0);
    }

    // ------------------------------------------------------------------ table

    String table() {
        StringBuilder sb = new StringBuilder("\n");
        sb.append(String.format(Locale.ROOT, "Latency per arm and rate (ms, open loop, from each request's due time; "
                + "+p50/+p99: minus the direct arm's at that rate;%n armCPU, redisCPU: CPU per request of the arm's JVM, "
                + "JIT compiler threads left out, and of redis-server; redis/req: EVALSHA and all commands, scripts' own included)%n"));
        sb.append(String.format(Locale.ROOT, "%-8s %-8s %7s %7s %7s %7s %7s %7s %8s %7s %8s %8s %13s%n", "rate/s", "arm", "p50",
                "p99", "p99.9", "max", "+p50", "+p99", "p99/dir", "errors", "armCPU", "redisCPU", "redis/req"));
        for (double rate : rates) {
            Arm.Measured d = direct.byRate.get(rate);
            if (d == null) continue;
            for (Arm arm : arms) {
                Arm.Measured m = arm.byRate.get(rate);
                if (m == null) continue;
                sb.append(String.format(Locale.ROOT, "%-8.0f %-8s %7.2f %7.2f %7.2f %7.1f %7s %7s %8s %7d %6.0fus %6.0fus %13s%s%n",
                        rate, arm.key, m.ms(50), m.ms(99), m.ms(99.9), m.maxMs(),
                        arm == direct ? "" : signed(m.ms(50) - d.ms(50)), arm == direct ? "" : signed(m.ms(99) - d.ms(99)),
                        arm == direct ? "" : String.format(Locale.ROOT, "%.2fx", m.ms(99) / d.ms(99)), m.errors,
                        m.perRequestUs(m.armCpuNs), m.perRequestUs(m.redisCpuNs),
                        m.redisCalls < m.sent / 10 ? "" : String.format(Locale.ROOT, "%.1f EVALSHA %.0f", (double) m.redisEvalsha / m.sent,
                                (double) m.redisCalls / m.sent),
                        m.passes() ? "" : "  <- misses p99 < 5 ms / no errors"));
            }
        }
        sb.append(String.format(Locale.ROOT, "%nHighest rate sustained (p99 < %.0f ms and no errors there and at every lower rate)%n",
                OverheadBenchmark.P99_LIMIT_MS));
        double directBest = direct.highestSustained();
        for (Arm arm : arms) {
            double best = arm.highestSustained();
            sb.append(String.format(Locale.ROOT, "  %-8s %-45s %6.0f req/s  %5.2fx direct%s%n", arm.key, arm.label, best,
                    directBest == 0 ? Double.NaN : best / directBest, ceiling(arm)));
        }
        sb.append(String.format(Locale.ROOT, "%nSluice's added latency against bare SCG's at each rate both were measured at "
                + "(the target: added p99 within 1.5x of SCG's)%n"));
        for (Map<String, Object> row : sluiceVsScg()) {
            sb.append(String.format(Locale.ROOT, "  %6.0f req/s: added p50 %s vs %s ms (%.2fx), added p99 %s vs %s ms (%.2fx)%s%n",
                    row.get("rate"), signed((double) row.get("sluice_added_p50_ms")), signed((double) row.get("scg_added_p50_ms")),
                    row.get("p50_ratio"), signed((double) row.get("sluice_added_p99_ms")), signed((double) row.get("scg_added_p99_ms")),
                    row.get("p99_ratio"), (boolean) row.get("both_sustain") ? "" : "  (one of them misses p99 < 5 ms here)"));
        }
        sb.append(String.format(Locale.ROOT, "%nMachine: %s; load average before %s, after %s; %s s%n", machine.get("cpu"),
                machine.get("load_average_before"), machine.get("load_average_after"), machine.get("benchmark_seconds")));
        if (!sluiceCounters.isEmpty()) sb.append("Sluice counters: ").append(sluiceCounters).append('\n');
        return sb.toString();
    }

    /** Says when the grid of rates, not the arm, set its highest rate. */
    private String ceiling(Arm arm) {
        double best = arm.highestSustained();
        return best > 0 && best == rates.get(rates.size() - 1) ? "  (the highest rate tried)"
                : arm.firstFailedRate == 0 && best > 0 ? "  (not tried higher: every other arm had stopped)" : "";
    }

    private List<Map<String, Object>> sluiceVsScg() {
        Arm sluice = find("sluice");
        Arm scg = find("scg");
        List<Map<String, Object>> rows = new ArrayList<>();
        if (sluice == null || scg == null) return rows;
        for (double rate : rates) {
            Arm.Measured s = sluice.byRate.get(rate);
            Arm.Measured g = scg.byRate.get(rate);
            Arm.Measured d = direct.byRate.get(rate);
            if (s == null || g == null || d == null) continue;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("rate", rate);
            double s50 = s.ms(50) - d.ms(50);
            double g50 = g.ms(50) - d.ms(50);
            double s99 = s.ms(99) - d.ms(99);
            double g99 = g.ms(99) - d.ms(99);
            row.put("sluice_added_p50_ms", s50);
            row.put("scg_added_p50_ms", g50);
            row.put("p50_ratio", s50 / g50);
            row.put("sluice_added_p99_ms", s99);
            row.put("scg_added_p99_ms", g99);
            row.put("p99_ratio", s99 / g99);
            row.put("within_1_5x", s99 <= 1.5 * g99);
            row.put("both_sustain", s.passes() && g.passes());
            rows.add(row);
        }
        return rows;
    }

    private Arm find(String key) {
        return arms.stream().filter(a -> a.key.equals(key)).findFirst().orElse(null);
    }

    private static String signed(double ms) {
        return String.format(Locale.ROOT, "%+.2f", ms);
    }

    // ------------------------------------------------------------------ JSON

    String json() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("benchmark", "overhead");
        root.put("settings", settings);
        root.put("machine", machine);
        Map<String, Object> byArm = new LinkedHashMap<>();
        double directBest = direct.highestSustained();
        for (Arm arm : arms) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("label", arm.label);
            a.put("warm_up_seconds", arm.warmUpSeconds);
            a.put("jit_settled_in_warm_up", arm.process == null || arm.warmedUp);
            a.put("highest_sustained_rate", arm.highestSustained());
            a.put("highest_sustained_vs_direct", directBest == 0 ? null : arm.highestSustained() / directBest);
            a.put("first_failed_rate", arm.firstFailedRate == 0 ? null : arm.firstFailedRate);
            List<Map<String, Object>> perRate = new ArrayList<>();
            for (Arm.Measured m : arm.byRate.values()) perRate.add(rate(arm, m));
            a.put("rates", perRate);
            byArm.put(arm.key, a);
        }
        root.put("arms", byArm);
        root.put("sluice_vs_scg", sluiceVsScg());
        root.put("sluice_counters", sluiceCounters);
        return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(root) + "\n";
    }

    private Map<String, Object> rate(Arm arm, Arm.Measured m) {
        Arm.Measured d = direct.byRate.get(m.rate);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rate", m.rate);
        r.put("sent", m.sent);
        r.put("achieved_rate", m.seconds == 0 ? 0 : m.sent / m.seconds);
        r.put("ok", m.ok);
        r.put("errors", m.errors);
        r.put("failures", m.failures);
        r.put("p50_ms", m.ms(50));
        r.put("p90_ms", m.ms(90));
        r.put("p99_ms", m.ms(99));
        r.put("p99_9_ms", m.ms(99.9));
        r.put("max_ms", m.maxMs());
        r.put("p99_ms_per_round", m.roundP99Ms);
        r.put("passes", m.passes());
        if (d != null && arm != direct) {
            r.put("added_p50_ms", m.ms(50) - d.ms(50));
            r.put("added_p99_ms", m.ms(99) - d.ms(99));
            r.put("p50_vs_direct", m.ms(50) / d.ms(50));
            r.put("p99_vs_direct", m.ms(99) / d.ms(99));
        }
        r.put("send_lag_p99_ms", m.sendLagUs.getValueAtPercentile(99) / 1000.0);
        r.put("arm_cpu_us_per_request", m.perRequestUs(m.armCpuNs));
        r.put("arm_jit_cpu_ms", m.jitCpuNs / 1e6);
        r.put("redis_cpu_us_per_request", m.perRequestUs(m.redisCpuNs));
        r.put("provider_cpu_us_per_request", m.perRequestUs(m.providerCpuNs));
        r.put("load_generator_cpu_us_per_request", m.perRequestUs(m.driverCpuNs));
        r.put("redis_commands_per_request", m.sent == 0 ? 0 : (double) m.redisCalls / m.sent);
        r.put("redis_evalsha_per_request", m.sent == 0 ? 0 : (double) m.redisEvalsha / m.sent);
        return r;
    }

    // ------------------------------------------------------------------ machine

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("note", "the load generator, the fake provider, the arm under test, the idle arms and redis-server share these CPUs");
        return m;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "n/a";
        }
    }
}
