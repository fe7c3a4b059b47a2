package dev.sluice.gateway.bench;

import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.quota.TenantWindows;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The in-memory cost of one admission, and the baselines it is read against. Run by
 * {@link QuotaCostBenchmark} (which sets the iteration counts); not a test.
 *
 * <p>Admission benchmarks use the free tier's windows (minute, hour, day: their lengths and
 * slot arithmetic) with the caps lifted, so that every call in a loop of millions is admitted
 * and charged; the cost of an admission does not depend on the caps' values. The refusal
 * benchmark keeps the real free-tier caps: its hot tenant is over them after 60 calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class QuotaAdmissionJmh {
    static final long TOKENS = 300;
    /** QuotaLimiter's default (sluice.store.timeout). */
    static final Duration STORE_TIMEOUT = Duration.ofMillis(500);

    private static final BiFunction<String, Long, Long> INCREMENT = (k, v) -> v == null ? 1L : v + 1;

    @State(Scope.Benchmark)
    public static class Shared {
        /** Active tenants in the store (and keys in the baseline map). */
        @Param("10000")
        int tenantCount;

        Tier free;
        Tier freeLifted;
        List<WindowLimit> lifted;
        List<WindowLimit> freeCaps;
        String[] tenants;
        InMemoryQuotaStore store;
        QuotaLimiter limiter;
        ConcurrentHashMap<String, Long> counts;

        @Setup(Level.Trial)
        public void setUp() {
            free = BenchTiers.free();
            freeLifted = BenchTiers.lifted(free);
            lifted = freeLifted.windows();
            freeCaps = free.windows();
            tenants = new String[tenantCount];
            for (int i = 0; i < tenantCount; i++) tenants[i] = "tenant-" + i;
            store = new InMemoryQuotaStore(Clock.systemUTC());
            limiter = new QuotaLimiter(store, null, STORE_TIMEOUT, new SimpleMeterRegistry());
            counts = new ConcurrentHashMap<>();
            // Every tenant active before measuring: the map holds its steady-state population.
            for (String t : tenants) {
                store.acquire(t, lifted, TOKENS, 1).block();
                counts.put(t, 0L);
            }
        }
    }

    /** Each thread walks the tenants in its own order (a stride coprime with their number). */
    @State(Scope.Thread)
    public static class Cursor {
        int i;

        @Setup(Level.Trial)
        public void setUp() {
            i = ThreadLocalRandom.current().nextInt(1 << 20);
        }

        String next(String[] tenants) {
            i = (i + 7919) % tenants.length; // 7919 is prime: every tenant in turn
            return tenants[i];
        }
    }

    /** The pure algorithm for one tenant, no store: a private TenantWindows per thread. */
    @State(Scope.Thread)
    public static class Core {
        TenantWindows windows;
        SlidingWindow minute;
        InMemoryQuotaStore refusing;

        @Setup(Level.Trial)
        public void setUp() {
            windows = new TenantWindows();
            minute = new SlidingWindow(60_000);
            refusing = new InMemoryQuotaStore(Clock.systemUTC());
        }
    }

    // ---- baselines: what any in-memory per-key counter costs on this machine ----

    /** A bare ConcurrentHashMap.compute increment of a per-tenant counter, as many keys as tenants. */
    @Benchmark
    public Long baselineChmCompute(Shared s, Cursor c) {
        return s.counts.compute(c.next(s.tenants), INCREMENT);
    }

    @Benchmark
    @Threads(2)
    public Long baselineChmCompute2t(Shared s, Cursor c) {
        return s.counts.compute(c.next(s.tenants), INCREMENT);
    }

    /** One SlidingWindow (the minute), no map, no lock, no decision object. */
    @Benchmark
    public long baselineSlidingWindow(Core c) {
        long now = System.currentTimeMillis();
        c.minute.advance(now);
        if (c.minute.fits(TOKENS, 1, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4)) c.minute.charge(now, TOKENS, 1);
        return c.minute.usedRequests();
    }

    // ---- the quota ----

    /** TenantWindows.acquire over minute + hour + day, with its decision and usage list. */
    @Benchmark
    public QuotaDecision coreTenantWindows(Shared s, Core c) {
        return c.windows.acquire(s.lifted, System.currentTimeMillis(), TOKENS, 1);
    }

    /** InMemoryQuotaStore.acquire(...).block(): map lookup, per-tenant lock, Mono. Many tenants. */
    @Benchmark
    public QuotaDecision storeManyTenants(Shared s, Cursor c) {
        return s.store.acquire(c.next(s.tenants), s.lifted, TOKENS, 1).block();
    }

    @Benchmark
    @Threads(2)
    public QuotaDecision storeManyTenants2t(Shared s, Cursor c) {
        return s.store.acquire(c.next(s.tenants), s.lifted, TOKENS, 1).block();
    }

    /** One tenant takes every call: the same lock each time. */
    @Benchmark
    public QuotaDecision storeHotTenant(Shared s) {
        return s.store.acquire("hot", s.lifted, TOKENS, 1).block();
    }

    @Benchmark
    @Threads(2)
    public QuotaDecision storeHotTenant2t(Shared s) {
        return s.store.acquire("hot", s.lifted, TOKENS, 1).block();
    }

    /** A hot tenant over the real free-tier caps: every call is a refusal with its Retry-After scan. */
    @Benchmark
    public QuotaDecision storeHotTenantRefused(Shared s, Core c) {
        return c.refusing.acquire("hot", s.freeCaps, TOKENS, 1).block();
    }

    /** The store call with the Reactor timeout QuotaLimiter puts on every call (a timer scheduled and cancelled). */
    @Benchmark
    public QuotaDecision storeManyTenantsWithTimeout(Shared s, Cursor c) {
        return s.store
                .acquire(c.next(s.tenants), s.lifted, TOKENS, 1)
                .timeout(STORE_TIMEOUT)
                .block();
    }

    /** As the gateway asks: QuotaLimiter.acquire (tier.windows(), the store timeout, the outcome). */
    @Benchmark
    public QuotaLimiter.Outcome limiterManyTenants(Shared s, Cursor c) {
        return s.limiter.acquire(c.next(s.tenants), s.freeLifted, TOKENS).block();
    }
}
