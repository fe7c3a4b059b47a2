package dev.sluice.lab.scenario;

import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.ProviderSimulator;
import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.RampResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs seed 000's cases against a lab provider of their own, over real HTTP, on one
 * {@link ScaledClock}, and returns the lab report. Each case runs once with a fixed crowd
 * (the table) and, if asked, under the ramp (users added every step until the first failure,
 * and a step more). Blocking: call it from a thread of its own.
 */
public final class ScenarioRunner {
    private static final Logger log = LoggerFactory.getLogger(ScenarioRunner.class);

    /** Told before each step (a case or a ramp) and once at the end, with {@code step} null. */
    @FunctionalInterface
    public interface Progress {
        void at(String step, int done, int total);
    }

    static final String SCALE_NOTE =
            "One clock runs %s× faster than the wall for the provider, the gateway and the clients, "
                    + "so every limit per minute, in-flight cap, page size and ratio between durations is the seed's; only wall-clock "
                    + "timers (a call's %d ms, a %d s ramp step) are divided by the factor, and all times are reported in seed units.";

    /** The dispatch lease for case 4's gateway, seed units: far longer than a call, short enough to keep its wake-ups fine. */
    static final Duration GATEWAY_LEASE = Duration.ofSeconds(20);

    private final ScenarioSettings settings;
    private final Progress progress;
    private final ScaledClock clock;

    public ScenarioRunner(ScenarioSettings settings, Progress progress) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.progress = progress == null ? (step, done, total) -> {} : progress;
        this.clock = new ScaledClock(settings.timeFactor());
    }

    public LabReport run() {
        List<CaseId> order = settings.caseOrder();
        int total = settings.steps();
        int done = 0;
        List<CaseResult> cases = new ArrayList<>();
        List<RampResult> ramps = new ArrayList<>();
        try (GatewayRig gateway = new GatewayRig()) {
            warmUp();
            for (CaseId id : order) {
                progress.at(id.id(), done++, total);
                cases.add(runCase(id, gateway));
            }
            if (settings.ramp()) {
                for (CaseId id : order) {
                    progress.at(id.id() + "-ramp", done++, total);
                    ramps.add(runRamp(id, gateway));
                }
            }
        }
        progress.at(null, done, total);
        String note = String.format(
                Locale.ROOT,
                SCALE_NOTE,
                trim(settings.timeFactor()),
                Math.round(settings.limits().latency().toMillis() / settings.timeFactor()),
                settings.rampStep().toSeconds());
        return new LabReport(
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                LabReport.Limits.of(settings.limits()),
                new LabReport.Scale(settings.timeFactor(), note),
                cases,
                ramps);
    }

    /**
     * A cold JVM interprets the tokenizer, JSON and HTTP code for its first thousand calls, and
     * would send the first burst at a fraction of its speed, spreading it over more than a call:
     * the shape would show the JIT, not the provider. So pages go once to a provider without
     * limits first, as fast as the machine takes them.
     */
    private void warmUp() {
        if (settings.warmUpPages() == 0) return;
        long started = System.nanoTime();
        LabProviderServer lab =
                new LabProviderServer(new ProviderSimulator(unlimited()), 0, clock, settings.timeFactor());
        lab.start();
        try {
            sendWarmUp("http://127.0.0.1:" + lab.port(), PageText.MODEL, null);
        } finally {
            lab.stop();
        }
        log.info("warm-up: {} pages in {} ms", settings.warmUpPages(), (System.nanoTime() - started) / 1_000_000);
    }

    /** The provider's limits lifted (calls still take their time): for warming up only. */
    private LabLimits unlimited() {
        return settings.limits()
                .withRequestsPerMinute(Integer.MAX_VALUE)
                .withTokensPerMinute(Long.MAX_VALUE / 4)
                .withMaxInFlight(Integer.MAX_VALUE)
                .withInputTokensPerMinute(0)
                .withOutputTokensPerMinute(0);
    }

    /** The warm-up's pages, in bursts like the cases' (a book at a time, a few books at once). */
    private void sendWarmUp(String baseUrl, String model, String key) {
        try (PageSender.Http http = PageSender.Http.unbounded("lab-warm-up", baseUrl, 1_000)) {
            Flux.range(0, settings.warmUpPages())
                    .flatMap(
                            i -> http.post(
                                    "/v1/chat/completions",
                                    PageText.chatBody(model, "warm-up", i / 100, i % 100),
                                    "authorization",
                                    "Bearer " + (key == null ? "sk-lab-warm-up" : key)),
                            300)
                    .blockLast(Duration.ofMinutes(3));
        }
    }

    /** The table's run: a fixed crowd uploads for {@code uploadFor}, then the books in progress finish. */
    CaseResult runCase(CaseId id, GatewayRig gateway) {
        try (Rig rig = rig(id, gateway)) {
            CaseRecorder rec = rig.begin();
            Crowd crowd = rig.crowd(id, rec);
            int users = settings.usersFor(id);
            rec.usersNow(users, rec.startMs());
            long stopAt = rec.startMs() + settings.uploadFor().toMillis();
            Flux.range(0, users)
                    .flatMap(u -> crowd.user(u, () -> clock.millis() < stopAt), users)
                    .then()
                    // Books still unanswered when the cap passes are cut: they count as broken.
                    .timeout(clock.real(settings.uploadFor().plus(settings.drainCap())), Mono.empty())
                    .block();
            CaseResult result = rec.caseResult(id, rig.lab.stats());
            rig.end();
            log.info(
                    "{}: {} pages, {} died at the provider, {}/{} books clean",
                    id.id(),
                    result.pagesSent(),
                    result.pagesDied(),
                    result.booksClean(),
                    result.booksTotal());
            warnUnexpected(id, rec);
            return result;
        }
    }

    /** The ramp: users added at every step until the first failure, a grace of steps more, then everything stops. */
    RampResult runRamp(CaseId id, GatewayRig gateway) {
        try (Rig rig = rig(id, gateway)) {
            CaseRecorder rec = rig.begin();
            Crowd crowd = rig.crowd(id, rec);
            AtomicBoolean going = new AtomicBoolean(true);
            List<Disposable> users = new ArrayList<>();
            List<Integer> steps = settings.rampUsers();
            long stepMs = settings.rampStep().toMillis();
            long graceMs = settings.rampGraceSteps() * stepMs;
            long lastEnd = rec.startMs() + (steps.size() - 1) * stepMs + Math.max(stepMs, graceMs);
            int next = 0;
            try {
                while (true) {
                    long now = clock.millis();
                    long end = Math.min(
                            lastEnd,
                            rec.firstFailureMs() == Long.MAX_VALUE
                                    ? Long.MAX_VALUE
                                    : rec.firstFailureMs() + Math.max(graceMs, 1));
                    if (now >= end) break;
                    if (next < steps.size() && now >= rec.startMs() + next * stepMs) {
                        int target = steps.get(next++);
                        rec.usersNow(target, now); // before they start: their first page may fail at once
                        for (int u = users.size(); u < target; u++) {
                            users.add(
                                    crowd.user(u, going::get).subscribe(v -> {}, e -> log.warn("ramp user failed", e)));
                        }
                        continue;
                    }
                    long until = Math.min(end, next < steps.size() ? rec.startMs() + next * stepMs : end);
                    sleepReal(clock.realMillis(Math.min(until - now, 100)));
                }
            } finally {
                going.set(false);
                users.forEach(Disposable::dispose); // pages still waiting or in flight are cancelled
            }
            rig.end();
            warnUnexpected(id, rec);
            return rec.rampResult(id, settings.limits());
        }
    }

    private void warnUnexpected(CaseId id, CaseRecorder rec) {
        if (rec.unexpectedErrors() > 0) {
            log.warn(
                    "{}: {} pages failed for a reason the scenario does not expect (see the log above)",
                    id.id(),
                    rec.unexpectedErrors());
        }
    }

    /** The case's provider and its client's pool, connected before the run's clock starts. */
    private Rig rig(CaseId id, GatewayRig gateway) {
        if (id == CaseId.CASE4) return gateway.rig();
        LabProviderServer lab = newLab();
        String base = "http://127.0.0.1:" + lab.port();
        PageSender.Http http;
        if (id == CaseId.CASE5) {
            http = PageSender.Http.fixed(
                    "lab-case5", base, settings.poolConnections(), clock.real(settings.poolAcquireTimeout()));
            http.warm("/v1/models", settings.poolConnections());
        } else {
            http = PageSender.Http.unbounded("lab-" + id.id(), base, 20_000);
            int burst = settings.usersFor(id) * (id == CaseId.CASE1 ? 1 : settings.pagesPerBook());
            http.warm("/v1/models", Math.min(burst, 1_000));
        }
        return new Rig(lab, http, null, PageText.MODEL, () -> {
            http.close();
            lab.stop();
        });
    }

    private LabProviderServer newLab() {
        ProviderSimulator simulator =
                new ProviderSimulator(settings.limits(), new SplittableRandom(settings.randomSeed()));
        LabProviderServer lab = new LabProviderServer(simulator, 0, clock, settings.timeFactor(), settings.ways());
        lab.start();
        return lab;
    }

    /** One run's provider and how its pages reach it. */
    final class Rig implements AutoCloseable {
        final LabProviderServer lab;
        private final PageSender.Http http;
        private final IntFunction<String> keyOf;
        private final Runnable afterClose;
        private final String model;
        private final List<AutoCloseable> closing = new ArrayList<>();

        /** @param afterClose what closing the rig also does: stop a lab of its own, or note when a shared one was last used */
        Rig(LabProviderServer lab, PageSender.Http http, IntFunction<String> keyOf, String model, Runnable afterClose) {
            this.model = model;
            this.lab = lab;
            this.http = http;
            this.keyOf = keyOf;
            this.afterClose = afterClose;
        }

        /** A new recorder, told every decision of the provider from now on. */
        CaseRecorder begin() {
            CaseRecorder rec = new CaseRecorder(
                    clock.millis(),
                    settings.limits().pricePerMillionTokens(),
                    settings.limits().windowMillis());
            lab.simulator().listener(rec);
            return rec;
        }

        void end() {
            lab.simulator().listener(null);
        }

        Crowd crowd(CaseId id, CaseRecorder rec) {
            PageSender sender = sender(id, rec);
            closing.add(sender);
            return new Crowd(clock, rec, sender, settings.pagesPerBook(), settings.think(), id == CaseId.CASE1, model);
        }

        private PageSender sender(CaseId id, CaseRecorder rec) {
            return switch (id) {
                case CASE1, CASE2 -> PageSender.direct(http, rec, clock);
                case CASE3 ->
                    PageSender.limited(
                            PageSender.direct(http, rec, clock),
                            new PageLimiter(settings.perUserBucket(), settings.globalBucket(), clock.millis()),
                            rec,
                            clock);
                case CASE4 -> PageSender.throughGateway(http, keyOf, rec, clock);
                case CASE5 -> PageSender.pooled(http, rec, clock);
            };
        }

        @Override
        public void close() {
            for (AutoCloseable c : closing) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.warn("closing a lab client failed: {}", e.toString());
                }
            }
            afterClose.run();
        }
    }

    /**
     * Case 4's provider and gateway, started on first use and kept for the case and its ramp
     * (starting a gateway costs seconds). Between runs the provider is reset and the next run
     * sends another model, with an empty budget of its own, so each run starts as the first did.
     */
    final class GatewayRig implements AutoCloseable {
        /** Each user's tenant key, made before the users start (a store call must not block an event loop). */
        private final List<String> keys = new ArrayList<>();

        private LabProviderServer lab;
        private ChildGateway gateway;
        private PageSender.Http http;
        private int runs;

        Rig rig() {
            if (gateway == null) start();
            else lab.reset();
            if (++runs > ChildGateway.RUNS)
                throw new IllegalStateException("case 4's gateway has budgets for " + ChildGateway.RUNS + " runs");
            return new Rig(lab, http, keys::get, ChildGateway.model(runs), () -> {});
        }

        private void start() {
            long begun = System.nanoTime();
            lab = newLab();
            log.info(
                    "case4: starting a Sluice gateway of its own for the lab (in-memory store, port chosen by the system)");
            gateway = ChildGateway.start(
                    lab.baseUrl(), settings.limits(), settings.gatewayHeadroom(), clock, GATEWAY_LEASE);
            int most = Math.max(
                    settings.crowdUsers(),
                    settings.ramp()
                            ? settings.rampUsers().get(settings.rampUsers().size() - 1)
                            : 0);
            keys.clear();
            for (int u = 0; u < most; u++) keys.add(gateway.key(u));
            // A new gateway runs its first thousand requests interpreted: warm it on a budget of its
            // own (another model), with the provider's limits lifted meanwhile, then start clean.
            long started = System.nanoTime();
            lab.simulator().setLimits(unlimited());
            sendWarmUp(gateway.baseUrl(), ChildGateway.WARM_UP_MODEL, keys.get(0));
            lab.simulator().setLimits(settings.limits());
            lab.reset();
            log.info(
                    "case4: gateway started in {} ms, warmed up with {} pages in {} ms",
                    (started - begun) / 1_000_000,
                    settings.warmUpPages(),
                    (System.nanoTime() - started) / 1_000_000);
            http = PageSender.Http.unbounded("lab-case4", gateway.baseUrl(), 20_000);
            http.warm("/actuator/health", Math.min(settings.crowdUsers() * settings.pagesPerBook(), 1_000));
            log.info(
                    "case4: a Sluice gateway on port {} in front of the lab provider on port {}",
                    gateway.port(),
                    lab.port());
        }

        @Override
        public void close() {
            if (http != null) http.close();
            if (gateway != null) gateway.close();
            if (lab != null) lab.stop();
        }
    }

    private static void sleepReal(Duration d) {
        try {
            Thread.sleep(Math.max(1, d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the lab run was interrupted", e);
        }
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
