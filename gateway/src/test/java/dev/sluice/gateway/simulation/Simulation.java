package dev.sluice.gateway.simulation;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.sluice.gateway.config.AbuseSettings;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import dev.sluice.gateway.config.EndpointAccess;
import dev.sluice.gateway.config.LadderSettings;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.RedisDownPolicy;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.dispatch.ProviderDispatcher;
import dev.sluice.gateway.dispatch.SimulationSeams;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.calibration.memory.InMemoryCalibrationStore;
import dev.sluice.gateway.dispatch.queue.memory.InMemoryLaneShare;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * One run of one seed: the world drawn, the gateway's replicas built of the production parts on
 * one {@link VirtualTimeScheduler} (installed as every Reactor scheduler, so the timeouts and
 * timers inside those parts run on it too), the tenants let loose for the world's run, then
 * everything drained, then the invariants checked ({@link Invariants}). No thread, no wall clock:
 * a seed replays exactly, its trace's digest the proof.
 */
final class Simulation {
    /** After the arrivals stop: how long every request is given to end (the longest max wait is 10 minutes). */
    static final long DRAIN_MAX_MS = 15 * 60_000;
    /** After the last request ended: time for slices, batches and leases to be given back. */
    static final long SETTLE_MS = 30_000;

    final World world;
    final VirtualTimeScheduler time;
    final Trace trace;
    final SplittableRandom random;
    final Clock storeClock;
    final InMemoryProviderBudgetStore sharedBudgets;
    final InMemoryQuotaStore sharedQuota;
    final InMemoryLaneShare sharedLanes = new InMemoryLaneShare();
    final OrderedCalibrationStore sharedCalibration = new OrderedCalibrationStore(new InMemoryCalibrationStore());
    final Map<String, SimProvider> providers = new LinkedHashMap<>();
    final List<SimProvider.Violation> violations = new ArrayList<>();
    final List<SimReplica> replicas = new ArrayList<>();
    final List<Attempt> attempts = new ArrayList<>();
    final Map<String, Tier> tiers = new LinkedHashMap<>();
    final List<String> escaped = new ArrayList<>();
    final List<String> dropped = new ArrayList<>();
    /** Per tenant and line ({@code tenant@budget}): when its interactive jobs waited there, {start, end} (end -1 while open). */
    final Map<String, List<long[]>> backlog = new HashMap<>();

    private final Map<String, Integer> inLine = new HashMap<>();
    /** Per provider: spans in which its budget was paused or it was out: the door could not know. */
    final Map<String, List<long[]>> disturbed = new HashMap<>();
    /** Where the tenants' charges land: the shared store, or the lone replica's own. */
    QuotaStore auditQuota;
    /**
     * (g): per budget line (the fleet's, or one replica's where budgets are not shared), spans in
     * which jobs waited while nothing was in flight at its provider, its budget was at most half
     * used and not paused, no replica's circuit stepped around the provider and the provider was
     * not out: {start, end}, sampled every second.
     */
    final Map<String, List<long[]>> stalls = new LinkedHashMap<>();

    Simulation(World world, VirtualTimeScheduler time, Trace trace) {
        this.world = world;
        this.time = time;
        this.trace = trace;
        this.random = new SplittableRandom(world.seed() ^ 0x5DEECE66DL);
        this.storeClock = new SimClock(time, 0);
        this.sharedBudgets = new InMemoryProviderBudgetStore(storeClock);
        this.sharedQuota = new InMemoryQuotaStore(storeClock);
        this.auditQuota = sharedQuota;
        for (World.Provider p : world.providers()) {
            providers.put(p.name(), new SimProvider(p, time, random.split(), trace, violations));
            List<long[]> spans = new ArrayList<>();
            for (World.Outage o : p.outages())
                spans.add(new long[] {o.fromMs(), o.toMs() + 10_000}); // and the circuit's longest cooldown
            disturbed.put(p.name(), spans);
        }
        for (World.TierSpec t : world.tiers()) tiers.put(t.name(), tier(t));
        ConfigRegistry config = new ConfigRegistry(config(world, tiers));
        DispatchProperties settings = settings(world.gateway());
        for (int i = 0; i < world.gateway().replicas(); i++)
            replicas.add(new SimReplica(this, i, config, settings, random.split()));
    }

    long now() {
        return time.now(TimeUnit.MILLISECONDS);
    }

    Tier tierOf(String name) {
        return tiers.get(name);
    }

    /** The lone replica's own quota store (no Redis): where its charges land. */
    QuotaStore aloneQuota(Clock clock) {
        InMemoryQuotaStore own = new InMemoryQuotaStore(clock);
        auditQuota = own;
        return own;
    }

    /**
     * A job of {@code a} joined ({@code +1}) or left ({@code -1}) the line of budget {@code key}.
     * The backlog the fairness check reads is kept per tenant and line, for the tenant's
     * interactive jobs: while any interactive job waits, a line sends no batch job, and fairness
     * is promised within each class.
     */
    void inLine(Attempt a, String key, int delta) {
        a.inLine = delta > 0;
        if (a.batch) return;
        backlog(a.tenant + "@" + key, delta);
        backlog(a.tenant + "@" + atReplica(key, a.replica), delta); // for fairness per replica
    }

    /** A budget's line at one replica, as the fairness check keys it when replicas do not share lanes. */
    static String atReplica(String key, int replica) {
        return key + "@r" + replica;
    }

    private void backlog(String lane, int delta) {
        int before = inLine.getOrDefault(lane, 0);
        int after = before + delta;
        inLine.put(lane, after);
        List<long[]> spans = backlog.computeIfAbsent(lane, t -> new ArrayList<>());
        if (before == 0 && after > 0) spans.add(new long[] {now(), -1});
        if (before > 0 && after == 0) spans.get(spans.size() - 1)[1] = now();
    }

    /**
     * (g) One look at every budget line: a stall goes on while jobs wait there and nothing keeps
     * them (see {@link #stalls}). Reads only; a budget is looked at in its store only when its line
     * waits with nothing in flight.
     */
    void sampleStalls() {
        long now = now();
        Map<String, LineLook> lines = new LinkedHashMap<>();
        for (SimReplica r : replicas) {
            for (ProviderDispatcher d : r.dispatchers.all()) {
                boolean shared = world.gateway().shared();
                LineLook look = lines.computeIfAbsent(
                        shared ? d.key() : atReplica(d.key(), r.index),
                        k -> new LineLook(d, shared ? sharedBudgets : r.budgets));
                look.jobs += SimulationSeams.depth(d);
                if (d.health().blockedForMs(r.clock.millis()) > 0) look.stepped = true; // its circuit is open there
            }
        }
        lines.forEach((line, look) -> {
            String provider = look.dispatcher.provider();
            boolean stalled = look.jobs > 0
                    && providers.get(provider).inFlight() == 0
                    && !look.stepped
                    && !disturbedBetween(provider, now, now + 1)
                    && roomy(look.store, look.dispatcher);
            List<long[]> spans = stalls.computeIfAbsent(line, k -> new ArrayList<>());
            long[] open = spans.isEmpty() || spans.get(spans.size() - 1)[1] >= 0 ? null : spans.get(spans.size() - 1);
            if (stalled && open == null) spans.add(new long[] {now, -1});
            if (!stalled && open != null) open[1] = now;
        });
    }

    /** One budget line at one look: a dispatcher of it, its store, the jobs waiting, whether a circuit steps around it. */
    private static final class LineLook {
        final ProviderDispatcher dispatcher;
        final ProviderBudgetStore store;
        int jobs;
        boolean stepped;

        LineLook(ProviderDispatcher dispatcher, ProviderBudgetStore store) {
            this.dispatcher = dispatcher;
            this.store = store;
        }
    }

    /** Whether {@code provider} was paused by a 429 or out at some time in [{@code fromMs}, {@code toMs}). */
    boolean disturbedBetween(String provider, long fromMs, long toMs) {
        for (long[] span : disturbed.getOrDefault(provider, List.of()))
            if (span[0] < toMs && span[1] > fromMs) return true;
        return false;
    }

    /** The budget at most half used in its windows and not paused: room for whatever waits, by far. */
    private static boolean roomy(ProviderBudgetStore store, ProviderDispatcher d) {
        var limits = SimulationSeams.limits(d);
        var s = store.snapshot(d.key(), limits).block();
        return s != null
                && !s.paused()
                && s.usedTokens() * 2 <= limits.tokensPerMinute()
                && s.usedRequests() * 2 <= limits.requestsPerMinute();
    }

    void disturbed(String provider, long fromMs, long toMs) {
        disturbed.get(provider).add(new long[] {fromMs, toMs});
    }

    void escaped(Attempt a, Throwable e) {
        escaped.add(a.id + ": " + e);
    }

    boolean allEnded() {
        for (Attempt a : attempts) if (!a.ended) return false;
        return true;
    }

    private static Tier tier(World.TierSpec t) {
        // Every tier has the hour window tiers.yaml gives by default (60 × its minute): runs are shorter than an hour,
        // so
        // nothing leaves it and its usage at the end is everything the tenant was charged (the charge check reads it).
        return new Tier(
                t.name(),
                t.tpm(),
                t.rpm(),
                t.burst(),
                t.priority(),
                t.defaultMaxTokens(),
                List.of(new WindowLimit("hour", 3_600, 60 * t.tpm(), 60 * t.rpm())),
                t.downgrade() ? Map.of(World.MODEL, World.CHEAPER) : Map.of(),
                t.allowNoDowngrade(),
                RedisDownPolicy.FAIL_OPEN,
                EndpointAccess.DEFAULT,
                TierModels.ALL,
                SpendBudget.NONE);
    }

    private static SluiceConfig config(World w, Map<String, Tier> tiers) {
        List<ProviderSettings> providers = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (World.Provider p : w.providers()) {
            providers.add(SimReplica.providerSettings(p, w.toldLimits()));
            names.add(p.name());
        }
        return new SluiceConfig(
                tiers,
                LadderSettings.defaults(),
                AbuseSettings.defaults(),
                providers,
                Map.of(World.MODEL, names, World.CHEAPER, names),
                List.of());
    }

    private static DispatchProperties settings(World.Gateway g) {
        return new DispatchProperties(
                g.queueCapacity(),
                0.1,
                Duration.ofMinutes(10),
                g.maxAttempts(),
                SimReplica.DISPATCH_STORE_TIMEOUT,
                g.countDelay(),
                g.spillWait(),
                new DispatchProperties.Failover(
                        3,
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(10),
                        g.firstByteTimeout()));
    }

    /** What a run comes to. */
    /** @param servedPerTenant pages answered 200, per tenant, in the world's order of tenants */
    record Result(
            World world,
            long digest,
            long events,
            long simulatedMs,
            long cpuMs,
            Invariants.Report report,
            String thrown,
            List<SimProvider.Violation> violations,
            Map<String, Long> servedPerTenant) {
        boolean holds() {
            return thrown == null && report.hard().isEmpty();
        }

        /** {@link #holds}, and no known finding either. */
        boolean holdsStrictly() {
            return holds() && report.known().isEmpty();
        }

        /** Simulated minutes per CPU second. */
        double rate() {
            return cpuMs == 0 ? 0 : (simulatedMs / 60_000.0) / (cpuMs / 1000.0);
        }

        String line() {
            return String.format(
                    "seed %d: %s; %.1f sim-min in %d ms CPU (%.0f sim-min/s); digest %016x (%d events)%s",
                    world.seed(),
                    report == null ? "-" : report.summary(),
                    simulatedMs / 60_000.0,
                    cpuMs,
                    rate(),
                    digest,
                    events,
                    thrown == null ? "" : "; THREW " + thrown);
        }
    }

    /** Runs {@code world}; with {@code traceFile}, its events are written there too. */
    static Result run(World world, Path traceFile) {
        Map<String, Level> levels = quietLogs();
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        // Every Schedulers.parallel(), single(), ... is this one now (Mono.delay, timeout(), Flux.interval). Installed
        // with a
        // snapshot (no virtual one was installed before): reset() puts the JVM's own schedulers back, undisposed, for
        // the tests
        // that run after this one in the same JVM (their cached contexts hold those schedulers).
        VirtualTimeScheduler.set(time);
        List<String> dropped = new ArrayList<>();
        Runnable unwatch = watchDropped(dropped);
        long cpu = cpuNanos();
        Simulation sim = null;
        String thrown = null;
        try (Trace trace = new Trace(traceFile)) {
            sim = new Simulation(world, time, trace);
            new Clients(sim).start();
            Simulation watched = sim;
            time.schedulePeriodically(watched::sampleStalls, 1, 1, TimeUnit.SECONDS);
            try {
                time.advanceTimeBy(Duration.ofMillis(world.runMs()));
                long limit = world.runMs() + DRAIN_MAX_MS;
                while (!sim.allEnded() && sim.now() < limit) time.advanceTimeBy(Duration.ofSeconds(1));
                time.advanceTimeBy(Duration.ofMillis(SETTLE_MS));
            } catch (RuntimeException | AssertionError e) {
                thrown = e.toString();
            }
            sim.dropped.addAll(dropped);
            Invariants.Report report = Invariants.check(sim);
            long cpuMs = (cpuNanos() - cpu) / 1_000_000;
            Map<String, Long> served = new java.util.LinkedHashMap<>();
            for (String t : world.tenants()) served.put(t, 0L);
            for (Attempt a : sim.attempts) if (a.status == 200) served.merge(a.tenant, 1L, Long::sum);
            return new Result(
                    world,
                    trace.digest(),
                    trace.events(),
                    sim.now(),
                    cpuMs,
                    report,
                    thrown,
                    List.copyOf(sim.violations),
                    served);
        } finally {
            unwatch.run();
            VirtualTimeScheduler.reset();
            restoreLogs(levels);
        }
    }

    private static long cpuNanos() {
        var bean = ManagementFactory.getThreadMXBean();
        return bean.isCurrentThreadCpuTimeSupported() ? bean.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /**
     * Errors Reactor drops (a signal after its stream ended), on this thread, as Reactor logs
     * them: read from the log rather than through {@code Hooks.onErrorDropped}, whose hooks can
     * only be reset all at once (the gateway installs one of its own, which tests run after this
     * one in the same JVM keep).
     */
    private static Runnable watchDropped(List<String> dropped) {
        if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context))
            return () -> {};
        Thread run = Thread.currentThread();
        var appender = new ch.qos.logback.core.AppenderBase<ch.qos.logback.classic.spi.ILoggingEvent>() {
            @Override
            protected void append(ch.qos.logback.classic.spi.ILoggingEvent e) {
                if (e.getThreadName().equals(run.getName()) && e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                    dropped.add(e.getFormattedMessage()
                            + (e.getThrowableProxy() == null
                                    ? ""
                                    : ": " + e.getThrowableProxy().getMessage()));
                }
            }
        };
        appender.setContext(context);
        appender.start();
        Logger operators = (Logger) LoggerFactory.getLogger("reactor.core.publisher.Operators");
        operators.addAppender(appender);
        return () -> {
            operators.detachAppender(appender);
            appender.stop();
        };
    }

    /** The production classes log every circuit that opens and every store hiccup: thousands of lines a run, at warn. */
    private static Map<String, Level> quietLogs() {
        Map<String, Level> was = new HashMap<>();
        if (!(LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext)) return was;
        for (String name : List.of("dev.sluice", "reactor")) {
            Logger l = (Logger) LoggerFactory.getLogger(name);
            was.put(name, l.getLevel());
            l.setLevel(Level.ERROR);
        }
        return was;
    }

    private static void restoreLogs(Map<String, Level> levels) {
        levels.forEach((name, level) -> ((Logger) LoggerFactory.getLogger(name)).setLevel(level));
    }
}
