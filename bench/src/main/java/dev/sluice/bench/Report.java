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

    Report(
            List<Arm> arms,
            List<Double> rates,
            Map<String, Object> settings,
            Map<String, Object> machine,
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
        sb.append(String.format(
                Locale.ROOT,
                "Latency per arm and rate (ms, open loop, from each request's due time; arms %s; "
                        + "+p50/+p99: minus the direct arm's at that rate;%n armCPU, redisCPU: CPU per request (us) of the arm's JVM, "
                        + "JIT compiler threads left out, and of redis-server; gen%%: the load generator's CPU, %% of one core;%n"
                        + " redis/req: EVALSHA and all commands, scripts' own included; load: 1-min load average at the slices' ends, "
                        + "mean; %s cores)%n",
                settings.get("order"),
                machine.get("cores")));
        sb.append(String.format(
                Locale.ROOT,
                "%-7s %-8s %7s %7s %7s %7s %7s %7s %8s %6s %7s %8s %5s %13s %5s%n",
                "rate/s",
                "arm",
                "p50",
                "p99",
                "p99.9",
                "max",
                "+p50",
                "+p99",
                "p99/dir",
                "errors",
                "armCPU",
                "redisCPU",
                "gen%",
                "redis/req",
                "load"));
        for (double rate : rates) {
            Arm.Measured d = direct.byRate.get(rate);
            if (d == null) continue;
            for (Arm arm : arms) {
                Arm.Measured m = arm.byRate.get(rate);
                if (m == null) continue;
                Readings c = m.cost;
                sb.append(String.format(
                        Locale.ROOT,
                        "%-7.0f %-8s %7.2f %7.2f %7.2f %7.1f %7s %7s %8s %6d %7s %8s %5s %13s %5.2f%s%n",
                        rate,
                        arm.key,
                        m.ms(50),
                        m.ms(99),
                        m.ms(99.9),
                        m.maxMs(),
                        arm == direct ? "" : signed(m.ms(50) - d.ms(50)),
                        arm == direct ? "" : signed(m.ms(99) - d.ms(99)),
                        arm == direct ? "" : String.format(Locale.ROOT, "%.2fx", m.ms(99) / d.ms(99)),
                        m.errors,
                        us(m.perRequestUs(c.armCpuNs())),
                        us(m.perRequestUs(c.redisCpuNs())),
                        fixed(100 * Readings.cores(c.driverCpuNs(), c.wallNs()), 0),
                        c.redisCalls() < m.sent / 10
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        "%.2f EVALSHA %.0f",
                                        m.perRequest(c.redisEvalsha()),
                                        m.perRequest(c.redisCalls())),
                        m.meanLoad1(),
                        m.passes() ? "" : "  <- misses p99 < 5 ms / no errors"));
            }
        }
        sb.append(String.format(
                Locale.ROOT,
                "%nHighest rate sustained (p99 < %.0f ms and no errors there and at every lower rate)%n",
                OverheadBenchmark.P99_LIMIT_MS));
        double directBest = direct.highestSustained();
        for (Arm arm : arms) {
            double best = arm.highestSustained();
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-8s %-45s %6.0f req/s  %6s direct%s%n",
                    arm.key,
                    arm.label,
                    best,
                    directBest == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", best / directBest),
                    ceiling(arm)));
        }
        sb.append(String.format(
                Locale.ROOT,
                "%nCPU per request over each arm's whole run (us; arm JVM without / with its JIT "
                        + "compiler), Redis CPU and commands per request%n"));
        for (Arm arm : arms) {
            Readings c = total(arm);
            long sent = sent(arm);
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-8s arm %7s / %7s   redis %6s   EVALSHA %5s   commands %5s   (%d requests)%n",
                    arm.key,
                    us(Readings.perRequestUs(c.armCpuNs(), sent)),
                    us(Readings.perRequestUs(c.armTotalCpuNs(), sent)),
                    us(Readings.perRequestUs(c.redisCpuNs(), sent)),
                    fixed(Readings.perRequest(c.redisEvalsha(), sent), 2),
                    fixed(Readings.perRequest(c.redisCalls(), sent), 1),
                    sent));
        }
        sb.append('\n').append(verdict().text());
        sb.append(String.format(
                Locale.ROOT,
                "%nMachine: %s; arms %s; load average before %s, after %s; %s s%n",
                machine.get("cpu"),
                settings.get("order"),
                machine.get("load_average_before"),
                machine.get("load_average_after"),
                machine.get("benchmark_seconds")));
        if (!sluiceCounters.isEmpty())
            sb.append("Sluice counters: ").append(sluiceCounters).append('\n');
        return sb.toString();
    }

    /** Says when the grid of rates, not the arm, set its highest rate. */
    private String ceiling(Arm arm) {
        double best = arm.highestSustained();
        return best > 0 && best == rates.get(rates.size() - 1)
                ? "  (the highest rate tried)"
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

    List<Curves.Curve> curves() {
        return arms.stream().map(Arm::curve).toList();
    }

    Verdict verdict() {
        return Verdict.of(curves());
    }

    /** What an arm's slices cost, over every rate. */
    private static Readings total(Arm arm) {
        Readings t = Readings.ZERO;
        for (Arm.Measured m : arm.byRate.values()) t = t.plus(m.cost);
        return t;
    }

    private static long sent(Arm arm) {
        return arm.byRate.values().stream().mapToLong(m -> m.sent).sum();
    }

    private Arm find(String key) {
        return arms.stream().filter(a -> a.key.equals(key)).findFirst().orElse(null);
    }

    private static String signed(double ms) {
        return String.format(Locale.ROOT, "%+.2f", ms);
    }

    private static String us(double us) {
        return fixed(us, 0);
    }

    /** A figure with {@code decimals}, or "-" when unknown. */
    private static String fixed(double x, int decimals) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%." + decimals + "f", x) : "-";
    }

    /** JSON has no NaN: an unknown figure is null. */
    private static Double finite(double x) {
        return Double.isFinite(x) ? x : null;
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
            Readings c = total(arm);
            long sent = sent(arm);
            a.put("requests_measured", sent);
            a.put("arm_cpu_us_per_request", finite(Readings.perRequestUs(c.armCpuNs(), sent)));
            a.put("arm_cpu_with_jit_us_per_request", finite(Readings.perRequestUs(c.armTotalCpuNs(), sent)));
            a.put("redis_cpu_us_per_request", finite(Readings.perRequestUs(c.redisCpuNs(), sent)));
            a.put("load_generator_cpu_us_per_request", finite(Readings.perRequestUs(c.driverCpuNs(), sent)));
            a.put("redis_commands_per_request", finite(Readings.perRequest(c.redisCalls(), sent)));
            a.put("redis_evalsha_per_request", finite(Readings.perRequest(c.redisEvalsha(), sent)));
            List<Map<String, Object>> perRate = new ArrayList<>();
            for (Arm.Measured m : arm.byRate.values()) perRate.add(rate(arm, m));
            a.put("rates", perRate);
            byArm.put(arm.key, a);
        }
        root.put("arms", byArm);
        root.put("judged", verdict().json());
        root.put("sluice_vs_scg", sluiceVsScg());
        root.put("sluice_counters", sluiceCounters);
        return JsonMapper.builder()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .build()
                        .writeValueAsString(root) + "\n";
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
        Readings c = m.cost;
        r.put("arm_cpu_us_per_request", finite(m.perRequestUs(c.armCpuNs())));
        r.put("arm_cpu_with_jit_us_per_request", finite(m.perRequestUs(c.armTotalCpuNs())));
        r.put("arm_jit_cpu_ms", c.armJitNs() < 0 ? null : c.armJitNs() / 1e6);
        r.put("redis_cpu_us_per_request", finite(m.perRequestUs(c.redisCpuNs())));
        r.put("provider_cpu_us_per_request", finite(m.perRequestUs(c.providerCpuNs())));
        r.put("load_generator_cpu_us_per_request", finite(m.perRequestUs(c.driverCpuNs())));
        r.put("load_generator_cpu_share_of_one_core", finite(Readings.cores(c.driverCpuNs(), c.wallNs())));
        r.put("redis_commands", c.redisCalls());
        r.put("redis_evalsha", c.redisEvalsha());
        r.put("redis_commands_per_request", finite(m.perRequest(c.redisCalls())));
        r.put("redis_evalsha_per_request", finite(m.perRequest(c.redisEvalsha())));
        r.put("measured_seconds", c.wallNs() / 1e9);
        r.put("load_1min_per_round", m.load1PerRound);
        r.put("load_1min_mean", finite(m.meanLoad1()));
        return r;
    }

    // ------------------------------------------------------------------ machine

    static Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put(
                "note",
                "the load generator, the fake provider, the arm under test, the idle arms and redis-server share these CPUs");
        return m;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name"))
                    return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    /** The 1-minute load average; -1 where /proc/loadavg is missing. */
    static double load1() {
        try {
            return Double.parseDouble(
                    Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
