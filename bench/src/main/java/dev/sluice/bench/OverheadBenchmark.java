package dev.sluice.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The overhead benchmark: what each way of reaching an LLM provider adds to a call. Four arms,
 * each its own JVM, all started by this driver in the same run, against one fast fake provider:
 * <ol>
 *   <li>{@code direct}: the load generator calls the fake provider itself (the baseline);</li>
 *   <li>{@code scg}: a bare Spring Cloud Gateway with one route ({@link ScgArm});</li>
 *   <li>{@code scg-rrl}: the same with SCG's own {@code RequestRateLimiter} and {@code RedisRateLimiter};</li>
 *   <li>{@code sluice}: the real gateway jar, with Redis quotas, a provider budget and the full request
 *       path, for a tenant whose tier and budget are far above what the run sends.</li>
 * </ol>
 * Load is open loop at fixed rates ({@link OpenLoop}); at each rate every arm is measured in
 * {@code rounds} slices, the order of the arms rotated from one slice to the next, so that noise
 * from elsewhere on the machine spreads over all arms ({@code -Dsluice.bench.order=interleaved}, the
 * default). With {@code -Dsluice.bench.order=alone} each arm instead runs by itself: started,
 * warmed up, taken through every rate and round, and stopped before the next one starts, so that no
 * idle arm's JVM shares the CPUs with it; the direct arm goes last, at the rates the others reached.
 * For each slice the driver records each process's CPU time, Redis's commands and the machine's
 * load average ({@link Readings}). "Added" latency is an arm's percentile minus
 * the direct arm's at the same rate. An arm sustains a rate when its p99 is under 5 ms with no
 * error there and at every lower rate. Run with:
 * <pre>./mvnw -q -pl gateway,bench package -Dmaven.test.skip=true -Poverhead-bench</pre>
 * It prints the tables and the judged summary ({@link Verdict}) and writes
 * {@code bench/target/overhead/overhead.json} and its chart, {@code overhead.png} ({@link OverheadChart});
 * {@code -Dsluice.bench.chart-from=<overhead.json>} only redraws the chart from a JSON written earlier.
 * See docs/performance.md.
 */
public final class OverheadBenchmark {
    static final double P99_LIMIT_MS = 5.0;
    /** The same for every JVM under test: a fixed heap, so no arm pays or saves for resizing. */
    static final List<String> ARM_JVM = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC");

    private static final String API_KEY = "sk-bench-overhead";

    private final boolean quick = Boolean.getBoolean("sluice.bench.quick");
    private final Path out = Path.of(System.getProperty("sluice.bench.out", "target/overhead"));
    private final String javaBin = System.getProperty(
            "sluice.bench.java",
            Path.of(System.getProperty("java.home"), "bin", "java").toString());
    private final String gatewayJar = System.getProperty("sluice.bench.gateway.jar");
    private final List<Double> rates = doubles(System.getProperty(
            "sluice.bench.rates", quick ? "250,1000" : "250,500,1000,2000,3000,4000,6000,8000,12000,16000"));
    private final Duration slice = Duration.ofMillis(Long.getLong("sluice.bench.slice-ms", quick ? 2_000 : 6_000));
    private final Duration settle = Duration.ofMillis(Long.getLong("sluice.bench.settle-ms", quick ? 500 : 1_000));
    private final int rounds = Integer.getInteger("sluice.bench.rounds", quick ? 1 : 2);
    /** The longest warm-up of one arm: it ends earlier once the arm's JIT has settled. */
    private final Duration warmUp = Duration.ofMillis(Long.getLong("sluice.bench.warmup-ms", quick ? 3_000 : 90_000));

    private final double warmUpRate = Double.parseDouble(System.getProperty("sluice.bench.warmup-rate", "500"));
    /** Every arm that is not far past its limit is measured up to this rate, whatever its p99. */
    private final double alwaysUpTo = Double.parseDouble(System.getProperty("sluice.bench.always-up-to", "1000"));
    /** Pins the load generator and the fake provider to CPU 0, the arms and Redis to CPU 1. */
    private final boolean pin = Boolean.getBoolean("sluice.bench.pin");
    /** An arm to record with Java Flight Recorder (profile settings), e.g. {@code sluice}. */
    private final String jfr = System.getProperty("sluice.bench.jfr", "");
    /** Only these arms besides direct, e.g. {@code sluice} when profiling. */
    private final List<String> only = List.of(
            System.getProperty("sluice.bench.arms", "scg,scg-rrl,sluice").split(","));
    /** {@code interleaved} (every arm at each rate in turn) or {@code alone} (one arm through every rate, the others stopped). */
    private final String order = order(System.getProperty("sluice.bench.order", "interleaved"));

    private final List<ChildProcess> infrastructure = new ArrayList<>();
    private final List<Arm> arms = new ArrayList<>();
    private ChildProcess redis;
    private ChildProcess provider;
    private RedisClient redisClient;
    private StatefulRedisConnection<String, String> redisProbe;
    private int sluicePort;
    private int redisPort;
    private String upstream;

    public static void main(String[] args) {
        OpenLoop.quietLogging();
        String chartFrom = System.getProperty("sluice.bench.chart-from", "");
        if (!chartFrom.isBlank()) { // redraw only: no gateway, no arms
            try {
                say("Written: %s", OverheadChart.redraw(Path.of(chartFrom)));
                System.exit(0);
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        }
        int status = 0;
        OverheadBenchmark bench = new OverheadBenchmark();
        try {
            bench.run();
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            bench.stopAll();
        }
        System.exit(status); // Netty's and Lettuce's threads are not the benchmark's to wait for
    }

    private void run() throws Exception {
        if (gatewayJar == null || !Files.isRegularFile(Path.of(gatewayJar))) {
            throw new IllegalStateException(
                    "-Dsluice.bench.gateway.jar must name the gateway's jar (./mvnw -pl gateway package), got "
                            + gatewayJar);
        }
        long started = System.nanoTime();
        Map<String, Object> machine = Report.machine();
        machine.put("load_average_before", Report.loadAverage());
        machine.put("load_1min_before", Report.load1());
        machine.put("pinned", pin ? "load generator + fake provider on CPU 0; arm + Redis on CPU 1" : "no");
        if (pin) pinSelf();
        say(
                "Overhead benchmark%s: rates %s req/s, %d round(s) of %d s per arm and rate, warm-up %d s per arm, arms %s",
                quick ? " (quick)" : "", rates, rounds, slice.toSeconds(), warmUp.toSeconds(), order);
        Map<String, Object> sluiceCounters = order.equals("alone") ? runAlone() : runInterleaved();
        machine.put("load_average_after", Report.loadAverage());
        machine.put("load_1min_after", Report.load1());
        machine.put("benchmark_seconds", Math.round((System.nanoTime() - started) / 1e9));
        Report report = new Report(arms, rates, settings(), machine, sluiceCounters);
        System.out.print(report.table());
        Files.createDirectories(out);
        Path json = out.resolve("overhead.json");
        Files.writeString(json, report.json());
        say("Written: %s, %s", json, OverheadChart.drawFrom(json)); // from the JSON, as a redraw would
    }

    /** Every arm started at once, and measured at each rate in turn. */
    private Map<String, Object> runInterleaved() throws Exception {
        say("[1/4] starting redis-server, the fake provider and the arms (logs in %s)...", out.resolve("logs"));
        startInfrastructure();
        for (String key : List.of("scg", "scg-rrl", "sluice")) if (only.contains(key)) startArm(key);
        say("[2/4] checking every arm answers as it should...");
        for (Arm arm : arms) check(arm);
        say(
                "[3/4] warming up each arm at %.0f req/s until its JIT settles (at most %d s)...",
                warmUpRate, warmUp.toSeconds());
        for (Arm arm : arms) warmUp(arm);
        say("[4/4] measuring...");
        measure();
        return sluiceCounters();
    }

    /**
     * One arm at a time: started, checked, warmed up, taken through the rates, stopped. The direct
     * arm goes last, at the rates some other arm was measured at, with no arm's JVM alive.
     */
    private Map<String, Object> runAlone() throws Exception {
        say("[1/2] starting redis-server and the fake provider (logs in %s)...", out.resolve("logs"));
        startInfrastructure();
        Map<String, Object> sluiceCounters = new LinkedHashMap<>();
        say(
                "[2/2] each arm alone: start, check, warm up at %.0f req/s (at most %d s), measure, stop...",
                warmUpRate, warmUp.toSeconds());
        for (String key : List.of("scg", "scg-rrl", "sluice")) {
            if (!only.contains(key)) continue;
            Arm arm = startArm(key);
            check(arm);
            warmUp(arm);
            measureAlone(arm, rates);
            if (key.equals("sluice")) sluiceCounters = sluiceCounters();
            arm.close();
        }
        Arm direct = arms.get(0);
        List<Double> reached = rates.stream()
                .filter(r -> arms.stream().anyMatch(a -> a != direct && a.byRate.containsKey(r)))
                .toList();
        check(direct);
        warmUp(direct);
        measureAlone(direct, reached);
        return sluiceCounters;
    }

    /**
     * Loads the arm at the warm-up rate, in 5 s slices, until two slices in a row have had its
     * JIT compiler use under 5% of a CPU, no error and a p99 under 50 ms (or the time is up).
     * A cold JIT is slow: an arm loaded at full rate at once builds a backlog it then carries
     * into the run, and its compiler competes with everything else on the machine.
     */
    private void warmUp(Arm arm) {
        long started = System.nanoTime();
        Duration slice = quick ? Duration.ofSeconds(1) : Duration.ofSeconds(5);
        for (double share : new double[] {0.25, 0.5}) arm.load.run(warmUpRate * share, slice);
        int quiet = 0;
        while (System.nanoTime() - started < warmUp.toNanos() && quiet < 2) {
            long jit = arm.process == null ? 0 : arm.process.jitCpuNanos();
            OpenLoop.Step step = arm.load.run(warmUpRate, slice);
            jit = arm.process == null ? 0 : arm.process.jitCpuNanos() - jit;
            boolean settled = jit < slice.toNanos() / 20
                    && step.errors() == 0
                    && step.latencyUs().getValueAtPercentile(99) < 50_000;
            quiet = settled ? quiet + 1 : 0;
        }
        arm.warmUpSeconds = (System.nanoTime() - started) / 1e9;
        arm.warmedUp = quiet >= 2;
        say(
                "  %-8s %3.0f s%s",
                arm.key,
                arm.warmUpSeconds,
                arm.warmedUp ? "" : " (its JIT had not settled: its figures are pessimistic)");
    }

    private Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("order", order);
        s.put("rates", rates);
        s.put("rounds", rounds);
        s.put("slice_seconds", slice.toMillis() / 1000.0);
        s.put("settle_seconds", settle.toMillis() / 1000.0);
        s.put("warm_up_max_seconds", warmUp.toMillis() / 1000.0);
        s.put("warm_up_rate", warmUpRate);
        s.put("arm_jvm_options", ARM_JVM);
        s.put("p99_limit_ms", P99_LIMIT_MS);
        s.put("every_arm_measured_up_to_rate", alwaysUpTo);
        s.put("request", FakeProvider.REQUEST);
        s.put("request_timeout_seconds", OpenLoop.TIMEOUT.toSeconds());
        s.put("quick", quick);
        return s;
    }

    // ------------------------------------------------------------------ processes

    /** Redis, the fake provider, and the direct arm (which has no process). */
    private void startInfrastructure() throws Exception {
        Path logs = out.resolve("logs");
        redisPort = ChildProcess.freePort();
        Path redisDir = Files.createTempDirectory("sluice-bench-redis");
        redis = ChildProcess.start(
                "redis",
                List.of(
                        "redis-server",
                        "--port",
                        Integer.toString(redisPort),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--protected-mode",
                        "no",
                        "--dir",
                        redisDir.toString()),
                logs,
                armCpus());
        infrastructure.add(redis);
        redis.awaitPort(redisPort, Duration.ofSeconds(10));
        redisClient = RedisClient.create(redisUrl());
        redisProbe = redisClient.connect();

        int providerPort = ChildProcess.freePort();
        provider = ChildProcess.start(
                "provider",
                javaCommand(
                        List.of("-cp", classPath(), FakeProvider.class.getName(), Integer.toString(providerPort)),
                        "provider"),
                logs,
                pin ? "0" : null);
        infrastructure.add(provider);
        provider.awaitPort(providerPort, Duration.ofSeconds(30));
        upstream = "http://127.0.0.1:" + providerPort;
        arms.add(new Arm(
                "direct", "direct to the fake provider", null, URI.create(upstream + "/v1/chat/completions"), API_KEY));
    }

    /** Starts one arm's JVM and waits until it listens: one at a time, as JVMs starting together on 2 CPUs starve each other. */
    private Arm startArm(String key) throws Exception {
        int port = ChildProcess.freePort();
        Arm arm = switch (key) {
            case "scg" -> armJvm(key, "bare Spring Cloud Gateway", port, scgArgs(port));
            case "scg-rrl" ->
                armJvm(
                        key,
                        "SCG + RequestRateLimiter (RedisRateLimiter)",
                        port,
                        scgArgs(
                                port,
                                "--spring.profiles.active=rate-limited",
                                "--spring.data.redis.url=" + redisUrl()));
            case "sluice" -> {
                sluicePort = port;
                Path tiers = writeTiers(upstream + "/v1");
                yield armJvm(
                        key,
                        "Sluice (Redis quotas, full path)",
                        port,
                        List.of(
                                "-jar",
                                gatewayJar,
                                "--server.port=" + port,
                                "--spring.data.redis.url=" + redisUrl(),
                                "--sluice.provider.url=" + upstream + "/v1",
                                "--sluice.tiers.path=" + tiers,
                                "--sluice.demo.tenants=true",
                                // The load (up to OpenLoop.MAX_CONNECTIONS) comes from one address, as through a proxy.
                                "--sluice.edge.max-connections-per-client=0",
                                "--logging.level.root=WARN"));
            }
            default -> throw new IllegalArgumentException("no arm " + key);
        };
        arms.add(arm);
        await(arm.process, port);
        return arm;
    }

    /** Starts an arm's JVM with {@code args}, named by its key (its process, log and recording), on the arms' CPU. */
    private Arm armJvm(String key, String label, int port, List<String> args) throws IOException {
        return new Arm(
                key,
                label,
                ChildProcess.start(key, javaCommand(args, key), out.resolve("logs"), armCpus()),
                url(port),
                API_KEY);
    }

    /** The SCG arm's command line (the bare one's), then {@code more} options. */
    private List<String> scgArgs(int port, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "-cp", classPath(), ScgArm.class.getName(), "--server.port=" + port, "--bench.upstream=" + upstream));
        args.addAll(List.of(more));
        return args;
    }

    private static URI url(int port) {
        return URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
    }

    private String redisUrl() {
        return "redis://127.0.0.1:" + redisPort;
    }

    private String armCpus() {
        return pin ? "1" : null;
    }

    private static String order(String value) {
        if (!value.equals("interleaved") && !value.equals("alone")) {
            throw new IllegalArgumentException("-Dsluice.bench.order must be interleaved or alone, got " + value);
        }
        return value;
    }

    private static void await(ChildProcess p, int port) {
        try {
            p.awaitPort(port, Duration.ofSeconds(120));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<String> javaCommand(List<String> rest, String name) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin);
        cmd.addAll(ARM_JVM);
        if (name.equals(jfr)) {
            cmd.add("-XX:StartFlightRecording=settings=profile,filename="
                    + out.resolve(name + ".jfr").toAbsolutePath());
        }
        cmd.addAll(rest);
        return cmd;
    }

    private static String classPath() {
        return System.getProperty("java.class.path");
    }

    /**
     * The gateway's configuration for the run: one tier and one tenant whose windows never fill,
     * and the fake provider with limits far above the run's, so that neither the quota nor the
     * provider budget binds. Both still run for every request, in Redis.
     */
    private Path writeTiers(String providerUrl) throws Exception {
        String sha = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(API_KEY.getBytes(StandardCharsets.UTF_8)));
        String yaml = """
                # Written by the overhead benchmark (bench/): limits no run comes near.
                tiers:
                  bench:
                    tokens-per-minute: 1000000000000
                    requests-per-minute: 1000000000
                    priority: 1
                    default-max-tokens: 16
                providers:
                  - name: default
                    base-url: "%s"
                    headroom: 0.97              # as in the repository's tiers.yaml
                    models:
                      "*":
                        requests-per-minute: 1000000000
                        tokens-per-minute: 1000000000000
                        max-in-flight: 100000
                        price-per-million-tokens: 0.15
                demo-tenants:
                  - id: bench
                    tier: bench
                    key-sha256: %s
                """.formatted(providerUrl, sha);
        Files.createDirectories(out);
        Path file = out.resolve("sluice-tiers.yaml");
        Files.writeString(file, yaml);
        return file.toAbsolutePath();
    }

    private void pinSelf() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(
                        "taskset",
                        "-a",
                        "-p",
                        "-c",
                        "0",
                        Long.toString(ProcessHandle.current().pid()))
                .redirectErrorStream(true)
                .start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IllegalStateException("taskset failed: " + said);
    }

    private void stopAll() {
        for (Arm arm : arms) arm.close();
        if (redisProbe != null) redisProbe.close();
        if (redisClient != null) redisClient.shutdown();
        for (ChildProcess p : infrastructure) p.close();
    }

    // ------------------------------------------------------------------ checks

    /** The arm answers the fake provider's body; the two limiters show they ran. */
    private static void check(Arm arm) {
        OpenLoop.Answer a = null;
        for (int attempt = 1; a == null; attempt++) {
            try {
                a = arm.load.once();
            } catch (RuntimeException e) {
                // A JVM's first request loads and compiles its whole path: on a busy machine that can
                // outlast the request timeout. A second or third is the check; three misses are a fault.
                if (attempt == 3) throw new IllegalStateException(arm.key + " did not answer three requests", e);
                say("  %s: no answer to request %d (%s), again...", arm.key, attempt, e);
            }
        }
        if (a.status() != 200 || !a.body().equals(FakeProvider.RESPONSE)) {
            throw new IllegalStateException(arm.key + " answered " + a.status() + " " + a.headers() + " " + a.body());
        }
        if (arm.key.equals("scg-rrl") && !a.headers().containsKey("x-ratelimit-remaining")) {
            throw new IllegalStateException(
                    "scg-rrl: RedisRateLimiter did not run (no X-RateLimit-Remaining): " + a.headers());
        }
        if (arm.key.equals("sluice") && !"bench".equals(a.headers().get("x-sluice-tier"))) {
            throw new IllegalStateException(
                    "sluice: the tenant path did not run (no X-Sluice-Tier: bench): " + a.headers());
        }
    }

    /** What Sluice counted: every request passed its quota in Redis, none fell back to the local limiter. */
    private Map<String, Object> sluiceCounters() {
        Map<String, Object> c = new LinkedHashMap<>();
        if (sluicePort == 0) return c;
        try {
            String text = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + sluicePort + "/actuator/prometheus"))
                                    .build(),
                            BodyHandlers.ofString())
                    .body();
            for (String line : text.split("\n")) {
                if (line.startsWith("sluice_decisions_total")
                        || line.startsWith("sluice_store_fallback_total")
                        || line.startsWith("sluice_upstream_responses_total")) {
                    int space = line.lastIndexOf(' ');
                    c.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                }
            }
        } catch (Exception e) {
            c.put("error", e.toString());
        }
        return c;
    }

    // ------------------------------------------------------------------ measuring

    /** Every active arm at each rate, the order rotated from slice to slice. */
    private void measure() {
        for (int r = 0; r < rates.size(); r++) {
            double rate = rates.get(r);
            List<Arm> here = arms.stream().filter(a -> a.active).toList();
            if (here.size() < 2) break; // only the direct arm left: nothing to compare with it
            for (int round = 0; round < rounds; round++) {
                List<Arm> order = rotated(here, r * rounds + round);
                for (Arm arm : order) {
                    Arm.Measured m = arm.at(rate);
                    if (round > 0 && hopeless(m)) continue; // far past its limit: more rounds only pile up timeouts
                    slice(arm, m, rate);
                }
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %6.0f req/s:", rate));
            for (Arm arm : here) line.append(endOfRate(arm, rate));
            say("%s  (load %s)", line, Report.loadAverage());
        }
    }

    /** One arm through {@code rates}, every round of a rate in a row, until it stops. */
    private void measureAlone(Arm arm, List<Double> rates) {
        for (double rate : rates) {
            Arm.Measured m = arm.at(rate);
            for (int round = 0; round < rounds; round++) {
                if (round > 0 && hopeless(m)) break;
                slice(arm, m, rate);
            }
            say("  %6.0f req/s:%s  (load %s)", rate, endOfRate(arm, rate), Report.loadAverage());
            if (!arm.active) break;
        }
    }

    /** Decides, once a rate is measured, whether the arm goes on to the next; says how it did. */
    private String endOfRate(Arm arm, double rate) {
        Arm.Measured m = arm.at(rate);
        boolean firstMiss = !m.passes() && arm.firstFailedRate == 0;
        if (firstMiss) arm.firstFailedRate = rate;
        // An arm far past its limit stops. Otherwise every arm runs up to alwaysUpTo, so that
        // there are rates to compare them at, and past it stops at its second miss (one
        // miss can be the machine's, not the arm's).
        if (!arm.key.equals("direct") && (hopeless(m) || (!m.passes() && rate >= alwaysUpTo && !firstMiss)))
            arm.active = false;
        return String.format(
                Locale.ROOT,
                "  %s p50 %.2f p99 %.2f ms%s",
                arm.key,
                m.ms(50),
                m.ms(99),
                m.errors > 0 ? " (" + m.errors + " errors)" : "");
    }

    private static boolean hopeless(Arm.Measured m) {
        return m.errors > m.sent / 100 || m.ms(99) > 20 * P99_LIMIT_MS;
    }

    /**
     * One slice: settle at the rate (not recorded), then measure, with what each process spent
     * meanwhile and the machine's load at its end.
     */
    private void slice(Arm arm, Arm.Measured m, double rate) {
        if (arm.process != null) arm.process.checkAlive();
        arm.load.run(rate, settle);
        Readings before = readings(arm);
        OpenLoop.Step step = arm.load.run(rate, slice);
        m.add(step, readings(arm).minus(before), Report.load1());
    }

    /** Every counter a slice's cost is the growth of; the direct arm has no process (-1: no CPU of its own). */
    private Readings readings(Arm arm) {
        long jit = arm.process == null ? -1 : arm.process.jitCpuNanos();
        long all = arm.process == null ? -1 : arm.process.cpuNanos();
        long[] calls = redisCalls();
        return new Readings(
                all < 0 || jit < 0 ? -1 : all - jit,
                jit,
                redis.cpuNanos(),
                provider.cpuNanos(),
                ProcessHandle.current()
                        .info()
                        .totalCpuDuration()
                        .map(Duration::toNanos)
                        .orElse(-1L),
                calls[0],
                calls[1],
                System.nanoTime());
    }

    /** Commands Redis has run so far: all of them, and EVALSHA alone (from INFO commandstats). */
    private long[] redisCalls() {
        long all = 0;
        long evalsha = 0;
        for (String line : redisProbe.sync().info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) continue;
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (name.equals("info")) continue; // this probe's own
            int at = line.indexOf("calls=") + "calls=".length();
            long calls = Long.parseLong(line.substring(at, line.indexOf(',', at)));
            all += calls;
            if (name.equals("evalsha") || name.equals("eval")) evalsha += calls;
        }
        return new long[] {all, evalsha};
    }

    private static <T> List<T> rotated(List<T> list, int by) {
        List<T> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) out.add(list.get((i + by) % list.size()));
        return out;
    }

    private static List<Double> doubles(String csv) {
        List<Double> out = new ArrayList<>();
        for (String s : csv.split(",")) if (!s.isBlank()) out.add(Double.parseDouble(s.trim()));
        return out;
    }

    static void say(String format, Object... args) {
        System.out.printf(
                Locale.ROOT,
                "%s %s%n",
                Instant.now().toString().substring(11, 19),
                String.format(Locale.ROOT, format, args));
        System.out.flush();
    }
}
