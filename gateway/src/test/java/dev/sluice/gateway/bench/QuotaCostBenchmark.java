package dev.sluice.gateway.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.TestRedis;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What one admission costs: in memory (JMH), with Redis (latency, throughput, commands and
 * server CPU per call from {@code INFO commandstats}), and Redis memory per active tenant.
 * A main class, not a test ({@code ./mvnw -B verify} never runs it):
 * <pre>./mvnw -q -pl gateway test-compile exec:exec@quota-bench</pre>
 * Starts its own redis-server through {@link TestRedis} (or uses {@code SLUICE_TEST_REDIS_URL};
 * it only ever deletes its own {@code sluice:q:{bench-…}} keys). Prints a table and writes it to
 * {@code gateway/target/bench/quota-cost.json}. {@code -Dsluice.bench.quick=true} shortens every
 * phase, for trying changes to the benchmark itself. See docs/performance.md.
 */
public final class QuotaCostBenchmark {
    /** One request's estimate: a short prompt (~44 tokens) plus the free tier's default-max-tokens (256). */
    static final long TOKENS = 300;
    /** What the provider then reports: reconciliation refunds the difference. */
    static final long ACTUAL = 180;

    private static final int IN_FLIGHT = 64;

    private final boolean quick = Boolean.getBoolean("sluice.bench.quick");
    private final Path out = Path.of(System.getProperty("sluice.bench.out", "target/bench/quota-cost.json"));
    private final String run = "bench-" + Long.toString(System.nanoTime() & 0xffffff, 36) + "-";
    private final List<Row> rows = new ArrayList<>();
    private final List<CommandRow> commandRows = new ArrayList<>();
    private final Map<String, Object> detail = new LinkedHashMap<>();
    private final Tier free = BenchTiers.free();

    /** One line of the table; {@code key} names it in the JSON. */
    record Row(String section, String key, String label, double value, String unit, String relative) {}

    public static void main(String[] args) throws Exception {
        quietLogging();
        int status = 0;
        try {
            new QuotaCostBenchmark().run();
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        }
        System.exit(status); // Lettuce's and Reactor's threads are not the benchmark's to wait for
    }

    private void run() throws Exception {
        long started = System.nanoTime();
        String loadBefore = loadAverage();
        say("Quota cost benchmark%s: free tier windows: %s", quick ? " (quick)" : "", BenchTiers.describe(free));
        say("[1/2] in memory: JMH (%s)...", quick ? "about 20 s" : "about 70 s");
        inMemory();
        heapPerTenant();
        say("[2/2] Redis: starting redis-server, then memory, latency, throughput, commandstats...");
        redis();
        double seconds = (System.nanoTime() - started) / 1e9;
        Map<String, Object> machine = machine();
        machine.put("benchmark_seconds", Math.round(seconds));
        machine.put("load_average_before", loadBefore); // other work on the machine skews every figure: see it here
        machine.put("load_average_after", loadAverage());
        printTable(machine);
        writeJson(machine);
    }

    // ------------------------------------------------------------------ in memory (JMH)

    private void inMemory() throws Exception {
        Map<String, RunResult> by = jmh(".*", 10_000);
        Map<String, RunResult> fewer = jmh("storeManyTenants$", 1_000);
        Map<String, Object> raw = new LinkedHashMap<>();
        for (Map.Entry<String, RunResult> e : by.entrySet()) {
            RunResult r = e.getValue();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("threads", r.getParams().getThreads());
            m.put("ns_per_op", r.getPrimaryResult().getScore());
            m.put("error_99_9", r.getPrimaryResult().getScoreError());
            raw.put(e.getKey(), m);
        }
        raw.put(
                "storeManyTenants_1000_tenants",
                Map.of(
                        "threads",
                        1,
                        "ns_per_op",
                        score(fewer, "storeManyTenants"),
                        "error_99_9",
                        fewer.get("storeManyTenants").getPrimaryResult().getScoreError()));
        detail.put("jmh", raw);

        double chm = score(by, "baselineChmCompute");
        double chm2 = score(by, "baselineChmCompute2t");
        String s = "in memory, JMH ns/op (per thread)";
        row(
                s,
                "memory.baseline_chm_compute",
                "baseline: ConcurrentHashMap.compute +1, 10k keys, 1 thread",
                chm,
                "ns/op",
                "1.0 x CHM");
        row(s, "memory.baseline_chm_compute_2t", "baseline: the same, 2 threads", chm2, "ns/op", throughput(chm2, 2));
        row(
                s,
                "memory.baseline_sliding_window",
                "baseline: one SlidingWindow (advance, fits, charge)",
                score(by, "baselineSlidingWindow"),
                "ns/op",
                times(score(by, "baselineSlidingWindow"), chm));
        row(
                s,
                "memory.core_tenant_windows",
                "TenantWindows.acquire, 3 windows (pure core)",
                score(by, "coreTenantWindows"),
                "ns/op",
                times(score(by, "coreTenantWindows"), chm));
        row(
                s,
                "memory.store_many_1t",
                "InMemoryQuotaStore admission, 10k tenants, 1 thread",
                score(by, "storeManyTenants"),
                "ns/op",
                times(score(by, "storeManyTenants"), chm));
        row(
                s,
                "memory.store_1k_1t",
                "InMemoryQuotaStore admission, 1k tenants, 1 thread",
                score(fewer, "storeManyTenants"),
                "ns/op",
                times(score(fewer, "storeManyTenants"), chm));
        row(
                s,
                "memory.store_many_2t",
                "InMemoryQuotaStore admission, 10k tenants, 2 threads",
                score(by, "storeManyTenants2t"),
                "ns/op",
                times(score(by, "storeManyTenants2t"), chm2) + "; " + throughput(score(by, "storeManyTenants2t"), 2));
        row(
                s,
                "memory.store_hot_1t",
                "InMemoryQuotaStore admission, one hot tenant, 1 thread",
                score(by, "storeHotTenant"),
                "ns/op",
                times(score(by, "storeHotTenant"), chm));
        row(
                s,
                "memory.store_hot_2t",
                "InMemoryQuotaStore admission, one hot tenant, 2 threads",
                score(by, "storeHotTenant2t"),
                "ns/op",
                times(score(by, "storeHotTenant2t"), chm2) + "; " + throughput(score(by, "storeHotTenant2t"), 2));
        row(
                s,
                "memory.store_hot_refused_1t",
                "InMemoryQuotaStore refusal (hot tenant over free caps)",
                score(by, "storeHotTenantRefused"),
                "ns/op",
                times(score(by, "storeHotTenantRefused"), chm));
        row(
                s,
                "memory.store_timeout_1t",
                "... the same admission with .timeout(500ms), as QuotaLimiter adds",
                score(by, "storeManyTenantsWithTimeout"),
                "ns/op",
                times(score(by, "storeManyTenantsWithTimeout"), chm));
        row(
                s,
                "memory.limiter_many_1t",
                "QuotaLimiter.acquire on the memory store (+ timeout)",
                score(by, "limiterManyTenants"),
                "ns/op",
                times(score(by, "limiterManyTenants"), chm));
    }

    /** Runs the benchmarks of QuotaAdmissionJmh whose name matches {@code regex}, in a forked JVM each. */
    private Map<String, RunResult> jmh(String regex, int tenants) throws Exception {
        String tiers = System.getProperty("sluice.bench.tiers");
        List<String> jvm = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        if (tiers != null) jvm.add("-Dsluice.bench.tiers=" + tiers);
        ChainedOptionsBuilder opts = new OptionsBuilder()
                .include(Pattern.quote(QuotaAdmissionJmh.class.getName()) + "\\." + regex)
                .param("tenantCount", Integer.toString(tenants))
                .forks(1)
                .warmupIterations(quick ? 1 : 2)
                .warmupTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .measurementIterations(quick ? 1 : 3)
                .measurementTime(TimeValue.milliseconds(quick ? 500 : 1000))
                .jvmArgsAppend(jvm.toArray(String[]::new))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        Map<String, RunResult> by = new LinkedHashMap<>();
        for (RunResult r : new Runner(opts.build()).run()) {
            String b = r.getParams().getBenchmark();
            by.put(b.substring(b.lastIndexOf('.') + 1), r);
        }
        return by;
    }

    /** Java heap held by the in-memory store per active tenant (free tier: 3 windows), after full GCs. */
    private void heapPerTenant() {
        int n = 10_000;
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) ids[i] = "heap-" + i;
        List<WindowLimit> windows = free.windows();
        InMemoryQuotaStore store = new InMemoryQuotaStore(Clock.systemUTC());
        store.acquire("first", windows, TOKENS, 1).block();
        long before = heapAfterGc();
        for (String id : ids) store.acquire(id, windows, TOKENS, 1).block();
        long after = heapAfterGc();
        Reference.reachabilityFence(store);
        row(
                "in memory, JMH ns/op (per thread)",
                "memory.heap_per_active_tenant",
                "Java heap per active tenant (3 windows, after GC)",
                (double) (after - before) / n,
                "bytes",
                store.tenantsHeld() + " tenants held");
    }

    private static long heapAfterGc() {
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            LockSupport.parkNanos(50_000_000L);
        }
        return mx.getHeapMemoryUsage().getUsed();
    }

    private static double score(Map<String, RunResult> by, String name) {
        RunResult r = by.get(name);
        if (r == null) throw new IllegalStateException("JMH did not run " + name);
        return r.getPrimaryResult().getScore();
    }

    // ------------------------------------------------------------------ Redis

    private void redis() {
        String url = TestRedis.url();
        ReactiveStringRedisTemplate template = TestRedisTemplates.template();
        AtomicLong simClock = new AtomicLong();
        RedisQuotaStore prod = new RedisQuotaStore(template); // Redis TIME, as in production
        RedisQuotaStore sim = new ClockedRedisQuotaStore(template, simClock::get); // simulated time (TestClock-style)
        List<WindowLimit> windows = free.windows();
        try (RedisProbe probe = new RedisProbe(url)) {
            detail.put("redis_url", url);
            detail.put("redis_version", probe.infoField("server", "redis_version"));
            detail.put("redis_maxmemory_policy", probe.infoField("memory", "maxmemory_policy"));
            prod.warmUp().block(Duration.ofSeconds(10));
            // Warm the client path (Lettuce, Reactor, the result mapping) before anything is timed.
            fullRequests(prod, i -> run + "warm-" + (i % 2000), quick ? 4_000 : 20_000);
            probe.deleteMatching("sluice:q:{" + run + "*");

            memoryPerTenant(probe, sim, simClock, windows);
            busyTenant(probe, sim, simClock, windows);
            latency(template, prod);
            throughputAndCommands(probe, template, prod);
            patterns(probe, sim, simClock, windows);
            probe.deleteMatching("sluice:q:{" + run + "*");
        }
    }

    /** INFO memory used_memory before and after N tenants become active with a few requests each. */
    private void memoryPerTenant(RedisProbe probe, RedisQuotaStore sim, AtomicLong clock, List<WindowLimit> windows) {
        int n = quick ? 2_000 : 10_000;
        long t0 = 1_800_000_000_000L;
        Random rnd = new Random(42);
        List<Event> events = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int k = 1 + rnd.nextInt(5); // 1..5 requests, 3 on average, anywhere in ten minutes
            for (int j = 0; j < k; j++)
                events.add(new Event(run + "mem-" + t, t0 + (long) (rnd.nextDouble() * 600_000)));
        }
        events.sort(Comparator.comparingLong(Event::atMs));
        long keysBefore = probe.sync.dbsize();
        long before = probe.usedMemory();
        long admitted = runEvents(sim, clock, events, windows, false, IN_FLIGHT);
        long after = probe.usedMemory();
        long keys = probe.sync.dbsize() - keysBefore;
        checkAdmitted("memory per tenant", admitted, events.size());

        // What the keys hold: a sample of tenants, per window.
        Map<String, Object> perWindow = new LinkedHashMap<>();
        int sample = Math.min(500, n);
        double sampledBytes = 0;
        for (WindowLimit w : windows) {
            long bytes = 0;
            long fields = 0;
            for (int t = 0; t < sample; t++) {
                String key = RedisQuotaStore.key(run + "mem-" + t, w.name());
                bytes += probe.sync.memoryUsage(key);
                fields += probe.sync.hlen(key);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("memory_usage_bytes_avg", (double) bytes / sample);
            m.put("fields_avg", (double) fields / sample);
            m.put("slots_avg", (double) fields / sample / 2 - 2); // fields: t:<slot> r:<slot> per slot, then T R h n
            m.put("encoding", probe.sync.objectEncoding(RedisQuotaStore.key(run + "mem-0", w.name())));
            perWindow.put(w.name(), m);
            sampledBytes += (double) bytes / sample;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenants", n);
        m.put("requests", events.size());
        m.put("keys_added", keys);
        m.put("used_memory_before", before);
        m.put("used_memory_after", after);
        m.put("per_window_sample", perWindow);
        detail.put("memory_per_tenant", m);

        String s = "Redis memory";
        double perTenant = (double) (after - before) / n;
        row(
                s,
                "redis.memory_per_active_tenant",
                String.format(
                        Locale.ROOT,
                        "used_memory delta / tenant (%,d tenants, %.1f req each)",
                        n,
                        (double) events.size() / n),
                perTenant,
                "bytes",
                String.format(Locale.ROOT, "%.1f keys/tenant", (double) keys / n));
        row(
                s,
                "redis.memory_usage_per_tenant_keys",
                "MEMORY USAGE of a tenant's 3 keys (avg of " + sample + ")",
                sampledBytes,
                "bytes",
                "listpack hashes");
        probe.deleteMatching("sluice:q:{" + run + "mem-*");
    }

    /** One tenant, thousands of requests over a simulated day: every window holds (nearly) all its 61 slots. */
    private void busyTenant(RedisProbe probe, RedisQuotaStore sim, AtomicLong clock, List<WindowLimit> windows) {
        String tenant = run + "busy";
        long t0 = 1_800_000_000_000L;
        long busyTokens = 150; // 59 requests in one minute must fit the free minute window's 10,000 tokens
        List<Event> events = new ArrayList<>();
        for (long at = t0; at <= t0 + 86_400_000L; at += 20_000)
            events.add(new Event(tenant, at)); // every 20 s for a day
        for (int s = 1; s <= 58; s++)
            events.add(new Event(tenant, t0 + 86_400_000L + s * 1000L)); // then every second for a minute
        probe.resetStats();
        long admitted = Flux.fromIterable(events)
                .concatMap(e -> {
                    clock.set(e.atMs());
                    return sim.acquire(e.tenant(), windows, busyTokens, 1);
                })
                .filter(QuotaDecision::admitted)
                .count()
                .block();
        Map<String, RedisProbe.CommandStat> busyStats = probe.commandStats();
        checkAdmitted("busy tenant", admitted, events.size());
        commandRows(
                "redis.busy_tenant",
                "admission, one tenant every 20 s for a day (full listpacks)",
                busyStats,
                events.size());
        Map<String, Object> perWindow = new LinkedHashMap<>();
        long total = 0;
        StringBuilder slots = new StringBuilder();
        for (WindowLimit w : windows) {
            String key = RedisQuotaStore.key(tenant, w.name());
            long bytes = probe.sync.memoryUsage(key);
            long fields = probe.sync.hlen(key);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("memory_usage_bytes", bytes);
            m.put("fields", fields);
            m.put("slots", (fields - 4) / 2);
            m.put("encoding", probe.sync.objectEncoding(key));
            m.put("ttl_ms", probe.sync.pttl(key));
            perWindow.put(w.name(), m);
            total += bytes;
            if (slots.length() > 0) slots.append(", ");
            slots.append(w.name())
                    .append(' ')
                    .append((fields - 4) / 2)
                    .append(" slots ")
                    .append(bytes)
                    .append(" B ")
                    .append(probe.sync.objectEncoding(key));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", events.size());
        m.put("windows", perWindow);
        detail.put("busy_tenant", m);
        row(
                "Redis memory",
                "redis.busy_tenant_memory_usage",
                String.format(
                        Locale.ROOT, "MEMORY USAGE, one busy tenant after %,d requests over a day", events.size()),
                total,
                "bytes",
                slots.toString());
        probe.deleteMatching("sluice:q:{" + tenant + "}*");
    }

    /** Sequential calls, one at a time: PING round trip (the baseline) and one admission, interleaved so both see the same machine. */
    private void latency(ReactiveStringRedisTemplate template, RedisQuotaStore prod) {
        int n = quick ? 4_000 : 20_000;
        int warm = 2_000;
        Histogram ping = new Histogram(3);
        Histogram acquire = new Histogram(3);
        long admitted = 0;
        for (int i = 0; i < n + warm; i++) {
            long t0 = System.nanoTime();
            template.execute(c -> c.ping()).blockLast();
            long t1 = System.nanoTime();
            String tenant =
                    run + "seq-" + (i % (n / 2)); // two or three admissions per tenant: the first creates its keys
            QuotaDecision d = prod.acquire(tenant, free.windows(), TOKENS, 1).block();
            long t2 = System.nanoTime();
            if (i >= warm) {
                ping.recordValue(t1 - t0);
                acquire.recordValue(t2 - t1);
                if (d.admitted()) admitted++;
            }
        }
        checkAdmitted("sequential latency", admitted, n);
        detail.put("latency_sequential_us", Map.of("ping", percentiles(ping), "acquire", percentiles(acquire)));
        String s = "Redis, one Lettuce connection";
        double pingP50 = ping.getValueAtPercentile(50) / 1e3;
        double pingP99 = ping.getValueAtPercentile(99) / 1e3;
        row(s, "redis.ping_p50", "baseline: PING round trip, sequential, p50", pingP50, "us", "1.0 x PING");
        row(s, "redis.ping_p99", "baseline: PING round trip, sequential, p99", pingP99, "us", "");
        row(
                s,
                "redis.acquire_p50",
                "admission (EVALSHA), sequential, p50",
                acquire.getValueAtPercentile(50) / 1e3,
                "us",
                times(acquire.getValueAtPercentile(50) / 1e3, pingP50) + " PING p50");
        row(
                s,
                "redis.acquire_p99",
                "admission (EVALSHA), sequential, p99",
                acquire.getValueAtPercentile(99) / 1e3,
                "us",
                times(acquire.getValueAtPercentile(99) / 1e3, pingP99) + " PING p99");
    }

    /** 64 calls in flight on the one connection; INFO commandstats over the same calls. */
    private void throughputAndCommands(RedisProbe probe, ReactiveStringRedisTemplate template, RedisQuotaStore prod) {
        int n = quick ? 20_000 : 100_000;
        int tenants = n / 10; // ten admissions per tenant: inside the free tier's minute caps
        double pingBefore = pingThroughput(template, n);

        ConcurrentHistogram underLoad = new ConcurrentHistogram(3);
        AtomicLong admitted = new AtomicLong();
        probe.resetStats();
        long t0 = System.nanoTime();
        Flux.range(0, n)
                .flatMap(
                        i -> Mono.defer(() -> {
                            long start = System.nanoTime();
                            return prod.acquire(run + "tp-" + (i % tenants), free.windows(), TOKENS, 1)
                                    .doOnNext(d -> {
                                        underLoad.recordValue(System.nanoTime() - start);
                                        if (d.admitted()) admitted.incrementAndGet();
                                    });
                        }),
                        IN_FLIGHT)
                .blockLast();
        double acquireOps = n / ((System.nanoTime() - t0) / 1e9);
        Map<String, RedisProbe.CommandStat> admission = probe.commandStats();
        double pingOps = (pingBefore + pingThroughput(template, n)) / 2; // before and after: both see the same machine
        checkAdmitted("throughput", admitted.get(), n);

        // The full request as the gateway makes it: an admission, then one reconciliation.
        int requests = n / 2;
        probe.resetStats();
        t0 = System.nanoTime();
        long full = fullRequests(prod, i -> run + "tpf-" + (i % tenants), requests);
        double requestOps = requests / ((System.nanoTime() - t0) / 1e9);
        Map<String, RedisProbe.CommandStat> request = probe.commandStats();
        checkAdmitted("full requests", full, requests);

        String s = "Redis, one Lettuce connection";
        row(
                s,
                "redis.ping_throughput_64",
                "baseline: PING, 64 in flight (mean of before and after)",
                pingOps,
                "ops/s",
                "1.0 x PING");
        row(
                s,
                "redis.acquire_throughput_64",
                "admissions, 64 in flight",
                acquireOps,
                "ops/s",
                times(acquireOps, pingOps) + " PING");
        row(
                s,
                "redis.acquire_p50_64",
                "admission latency with 64 in flight, p50",
                underLoad.getValueAtPercentile(50) / 1e3,
                "us",
                "");
        row(
                s,
                "redis.acquire_p99_64",
                "admission latency with 64 in flight, p99",
                underLoad.getValueAtPercentile(99) / 1e3,
                "us",
                "");
        row(
                s,
                "redis.request_throughput_64",
                "full requests (admission + reconcile), 64 in flight",
                requestOps,
                "req/s",
                times(requestOps, pingOps) + " PING");

        commandRows("redis.admission", "admission, Redis TIME (as above, 64 in flight)", admission, n);
        commandRows("redis.request", "request = admission + reconcile, Redis TIME", request, requests);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("admission", perOp(admission, n));
        m.put("request", perOp(request, requests));
        m.put("latency_64_in_flight_us", percentiles(underLoad));
        detail.put("commandstats_production_clock", m);
    }

    private static double pingThroughput(ReactiveStringRedisTemplate template, int n) {
        long t0 = System.nanoTime();
        Flux.range(0, n)
                .flatMap(i -> template.execute(c -> c.ping()), IN_FLIGHT)
                .blockLast();
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    /** Commands per admission by how often a tenant calls (simulated clock: the script is handed now, no TIME). */
    private void patterns(RedisProbe probe, RedisQuotaStore sim, AtomicLong clock, List<WindowLimit> windows) {
        int tenants = quick ? 200 : 1_000;
        int rounds = 10;
        Map<String, Object> all = new LinkedHashMap<>();
        for (long gap : new long[] {100, 1_000, 20_000}) {
            for (boolean reconcile : new boolean[] {false, true}) {
                String name = "gap" + gap + "ms" + (reconcile ? "_request" : "_admission");
                long t0 = 1_800_000_000_000L;
                List<Event> warm = new ArrayList<>();
                List<Event> counted = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    for (int t = 0; t < tenants; t++) {
                        Event e = new Event(run + name + "-" + t, t0 + r * gap + t * gap / tenants);
                        (r == 0 ? warm : counted).add(e);
                    }
                }
                runEvents(
                        sim, clock, warm, windows, reconcile,
                        IN_FLIGHT); // the first call creates the keys: not the steady state
                probe.resetStats();
                long admitted = runEvents(sim, clock, counted, windows, reconcile, IN_FLIGHT);
                Map<String, RedisProbe.CommandStat> stats = probe.commandStats();
                checkAdmitted(name, admitted, counted.size());
                all.put(name, perOp(stats, counted.size()));
                String every = gap < 1000 ? gap + " ms" : gap / 1000 + " s";
                commandRows(
                        "redis.pattern." + name,
                        (reconcile ? "request" : "admission") + ", each tenant every " + every,
                        stats,
                        counted.size());
                probe.deleteMatching("sluice:q:{" + run + name + "-*");
            }
        }

        // Refusals: a tenant that spent its minute in a burst and retries a second later, in a tight loop.
        int refusers = quick ? 20 : 100;
        long t0 = 1_800_000_000_000L;
        List<Event> burst = new ArrayList<>();
        List<Event> retries = new ArrayList<>();
        for (int t = 0; t < refusers; t++) {
            for (int j = 0; j < 40; j++) burst.add(new Event(run + "refused-" + t, t0 + t));
        }
        for (int r = 0; r < 10; r++) {
            for (int t = 0; t < refusers; t++)
                retries.add(new Event(run + "refused-" + t, t0 + 1_000 + r * 10 + t / 10));
        }
        runEvents(sim, clock, burst, windows, false, 1);
        probe.resetStats();
        long admitted = runEvents(sim, clock, retries, windows, false, IN_FLIGHT);
        Map<String, RedisProbe.CommandStat> stats = probe.commandStats();
        if (admitted != 0) say("WARNING: %d of the refusal phase's retries were admitted", admitted);
        all.put("refused_retry_after_burst", perOp(stats, retries.size()));
        commandRows("redis.pattern.refused", "refusal, retrying 1 s after spending the minute", stats, retries.size());
        probe.deleteMatching("sluice:q:{" + run + "refused-*");
        detail.put("commandstats_patterns_simulated_clock", all);
    }

    /** One line of the commands table: what one admission or request made Redis do. */
    record CommandRow(
            String key,
            String label,
            long ops,
            double evalsha,
            double eval,
            double commands,
            double scriptUsec,
            String breakdown) {}

    private void commandRows(String key, String label, Map<String, RedisProbe.CommandStat> stats, long ops) {
        long total = 0;
        StringBuilder breakdown = new StringBuilder();
        for (Map.Entry<String, RedisProbe.CommandStat> e : stats.entrySet()) {
            total += e.getValue().calls();
            if (e.getKey().equals("evalsha") || e.getKey().equals("eval")) continue;
            if (breakdown.length() > 0) breakdown.append(' ');
            breakdown
                    .append(e.getKey())
                    .append(' ')
                    .append(fmt((double) e.getValue().calls() / ops));
        }
        RedisProbe.CommandStat none = new RedisProbe.CommandStat(0, 0, 0);
        RedisProbe.CommandStat evalsha = stats.getOrDefault("evalsha", none);
        RedisProbe.CommandStat eval = stats.getOrDefault("eval", none);
        commandRows.add(new CommandRow(
                key,
                label,
                ops,
                (double) evalsha.calls() / ops,
                (double) eval.calls() / ops,
                (double) total / ops,
                (double) (evalsha.usec() + eval.usec()) / ops,
                breakdown.toString()));
    }

    private static Map<String, Object> perOp(Map<String, RedisProbe.CommandStat> stats, long ops) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operations", ops);
        long total = 0;
        Map<String, Object> calls = new LinkedHashMap<>();
        for (Map.Entry<String, RedisProbe.CommandStat> e : stats.entrySet()) {
            total += e.getValue().calls();
            calls.put(e.getKey(), (double) e.getValue().calls() / ops);
        }
        m.put("commands_per_op", (double) total / ops);
        m.put("calls_per_op", calls);
        RedisProbe.CommandStat evalsha = stats.get("evalsha");
        if (evalsha != null) {
            m.put("evalsha_usec_per_call", evalsha.usecPerCall());
            m.put("evalsha_usec_per_op", (double) evalsha.usec() / ops);
        }
        return m;
    }

    // ------------------------------------------------------------------ driving the store

    record Event(String tenant, long atMs) {}

    /** Sends events in order with the simulated clock at each one's time; returns how many were admitted. */
    private static long runEvents(
            RedisQuotaStore sim,
            AtomicLong clock,
            List<Event> events,
            List<WindowLimit> windows,
            boolean reconcile,
            int inFlight) {
        Long admitted = Flux.fromIterable(events)
                .flatMap(
                        e -> {
                            clock.set(e.atMs()); // the store reads it when the call is built: before the next
                            // event moves it
                            Mono<QuotaDecision> d = sim.acquire(e.tenant(), windows, TOKENS, 1);
                            if (!reconcile) return d.map(x -> x.admitted() ? 1L : 0L);
                            return d.flatMap(x -> x.admitted()
                                    ? sim.adjust(e.tenant(), windows, x.nowMs(), ACTUAL - TOKENS, 0)
                                            .thenReturn(1L)
                                    : Mono.just(0L));
                        },
                        inFlight)
                .reduce(0L, Long::sum)
                .block();
        return admitted == null ? 0 : admitted;
    }

    /** Admission then reconciliation, {@code n} times with 64 in flight (Redis TIME); returns the admitted count. */
    private long fullRequests(RedisQuotaStore store, IntFunction<String> tenant, int n) {
        List<WindowLimit> windows = free.windows();
        Long admitted = Flux.range(0, n)
                .flatMap(
                        i -> {
                            String t = tenant.apply(i);
                            return store.acquire(t, windows, TOKENS, 1)
                                    .flatMap(d -> d.admitted()
                                            ? store.adjust(t, windows, d.nowMs(), ACTUAL - TOKENS, 0)
                                                    .thenReturn(1L)
                                            : Mono.just(0L));
                        },
                        IN_FLIGHT)
                .reduce(0L, Long::sum)
                .block();
        return admitted == null ? 0 : admitted;
    }

    private static void checkAdmitted(String phase, long admitted, long expected) {
        if (admitted != expected)
            say("WARNING: %s: %d of %d admitted; its figures include refusals", phase, admitted, expected);
    }

    // ------------------------------------------------------------------ report

    private void row(String section, String key, String label, double value, String unit, String relative) {
        rows.add(new Row(section, key, label, value, unit, relative));
    }

    private static String times(double value, double base) {
        return String.format(Locale.ROOT, "%.1f x", value / base);
    }

    private static String throughput(double nsPerOpPerThread, int threads) {
        return String.format(Locale.ROOT, "%.1f M ops/s total", threads * 1e3 / nsPerOpPerThread);
    }

    private static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", h.getTotalCount());
        for (double p : new double[] {50, 90, 99, 99.9}) m.put("p" + fmt(p), h.getValueAtPercentile(p) / 1e3);
        m.put("max", h.getMaxValue() / 1e3);
        m.put("mean", h.getMean() / 1e3);
        return m;
    }

    private static String fmt(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) return Long.toString((long) v);
        if (Math.abs(v) >= 100) return String.format(Locale.ROOT, "%,.0f", v);
        if (Math.abs(v) >= 10) return String.format(Locale.ROOT, "%.1f", v);
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private Map<String, Object> machine() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", Instant.now().toString());
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("redis", detail.getOrDefault("redis_version", "?"));
        m.put("tier", "free: " + BenchTiers.describe(free));
        m.put("tokens_per_request", TOKENS);
        m.put("quick", quick);
        return m;
    }

    /** The 1, 5 and 15 minute load averages (Linux), or "?". */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name"))
                    return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux: the core count and the baselines still say enough
        }
        return System.getProperty("os.arch");
    }

    private void printTable(Map<String, Object> machine) {
        int lw = rows.stream().mapToInt(r -> r.label().length()).max().orElse(10);
        StringBuilder sb = new StringBuilder("\n");
        sb.append(String.format(
                Locale.ROOT,
                "Machine: %s cores, %s; %s; Redis %s; %s s; load average %s before, %s after%n",
                machine.get("cores"),
                machine.get("cpu"),
                machine.get("java"),
                machine.get("redis"),
                machine.get("benchmark_seconds"),
                machine.get("load_average_before"),
                machine.get("load_average_after")));
        String section = null;
        for (Row r : rows) {
            if (!r.section().equals(section)) {
                section = r.section();
                sb.append('\n').append(section).append('\n');
            }
            sb.append(String.format(
                    Locale.ROOT, "  %-" + lw + "s %12s %-6s %s%n", r.label(), fmt(r.value()), r.unit(), r.relative()));
        }
        int cw = commandRows.stream().mapToInt(r -> r.label().length()).max().orElse(10);
        sb.append("\nRedis work per call (INFO commandstats deltas; script CPU = evalsha usec / calls)\n");
        sb.append(String.format(
                Locale.ROOT,
                "  %-" + cw + "s %8s %5s %8s %10s  %s%n",
                "",
                "EVALSHA",
                "EVAL",
                "all cmds",
                "script us",
                "commands run by the scripts, per call"));
        for (CommandRow r : sortedCommandRows()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-" + cw + "s %8s %5s %8s %10s  %s%n",
                    r.label(),
                    fmt(r.evalsha()),
                    fmt(r.eval()),
                    fmt(r.commands()),
                    fmt(r.scriptUsec()),
                    r.breakdown()));
        }
        System.out.print(sb);
        System.out.flush();
    }

    /** Production clock first, then by how often a tenant calls, then the busy tenant and the refusals. */
    private List<CommandRow> sortedCommandRows() {
        List<String> order = List.of(
                "redis.admission", "redis.request", "redis.pattern.gap", "redis.busy_tenant", "redis.pattern.refused");
        List<CommandRow> sorted = new ArrayList<>(commandRows);
        sorted.sort(Comparator.comparingInt(r -> {
            for (int i = 0; i < order.size(); i++) if (r.key().startsWith(order.get(i))) return i;
            return order.size();
        }));
        return sorted;
    }

    private void writeJson(Map<String, Object> machine) throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("benchmark", "quota-cost");
        doc.put("command", "./mvnw -q -pl gateway test-compile exec:exec@quota-bench");
        doc.put("machine", machine);
        List<Object> figures = new ArrayList<>();
        for (Row r : rows) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("key", r.key());
            f.put("section", r.section());
            f.put("figure", r.label());
            f.put("value", r.value());
            f.put("unit", r.unit());
            f.put("relative", r.relative());
            figures.add(f);
        }
        doc.put("figures", figures);
        List<Object> commands = new ArrayList<>();
        for (CommandRow r : sortedCommandRows()) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("key", r.key());
            f.put("figure", r.label());
            f.put("calls_measured", r.ops());
            f.put("evalsha_per_call", r.evalsha());
            f.put("eval_per_call", r.eval());
            f.put("redis_commands_per_call", r.commands());
            f.put("script_usec_per_call", r.scriptUsec());
            f.put("breakdown", r.breakdown());
            commands.add(f);
        }
        doc.put("redis_commands", commands);
        doc.put("detail", detail);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, Json.write(doc), StandardCharsets.UTF_8);
        say("%nWrote %s", out.toAbsolutePath().normalize());
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
        System.out.flush();
    }

    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
        }
    }
}
