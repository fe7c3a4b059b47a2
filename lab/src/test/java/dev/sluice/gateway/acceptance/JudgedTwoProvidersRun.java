package dev.sluice.gateway.acceptance;

import static dev.sluice.gateway.acceptance.TwoProviders.PRIMARY;
import static dev.sluice.gateway.acceptance.TwoProviders.SECONDARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.gateway.acceptance.SeedCrowd.Client;
import dev.sluice.gateway.acceptance.SeedCrowd.Reply;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.lab.independent.IndependentProvider;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 17's judged run, ours to rerun: two independent providers ({@code provider.mjs}, two processes, each on
 * its own port and with its own key), both serving gpt-4o-mini, the primary with a tenth of the secondary's limits
 * (secondary: seed 000's 1 500 RPM, 300 000 TPM, 200 in flight; primary: 150, 30 000, 20), the route
 * {@code gpt-4o-mini: [primary, secondary]} in a tiers file given by {@code SLUICE_TIERS_PATH}, and seed 000's crowd
 * (six tenants, books of 100 pages at once, {@link JudgedRun#tenant}) through one gateway, in real time.
 * {@code --kill-primary-at=S} kills the primary's process (SIGKILL) S seconds into the crowd;
 * {@code --restore-primary-at=S} starts it again on the same port.
 *
 * <p>It prints and writes {@code lab/target/judged/<run>.md} and {@code .json}: per provider, the pages it served
 * (by {@code X-Sluice-Provider}) and the 429s and 503s it answered itself (its {@code /stats}, summed over its
 * lives); for the clients, pages served, answers without {@code X-Sluice-Provider}, refusals by status, the
 * longest gap in answers after the kill and how soon the primary served after its return; and what the primary
 * alone could have served in the time. Not a test (its name does not end in {@code Test}); it fails only with
 * {@code --strict} and a criterion missed. Run (docs/judged-run.md):
 * <pre>
 * ./mvnw -o -q -pl gateway,lab-provider,lab test -Dtest=JudgedTwoProvidersRun -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Djudged.args="--seconds=90 --kill-primary-at=30 --restore-primary-at=60"
 * </pre>
 */
class JudgedTwoProvidersRun {
    static final int SECONDARY_RPM = JudgedRun.REQUESTS_PER_MINUTE;
    static final int SECONDARY_TPM = JudgedRun.TOKENS_PER_MINUTE;
    static final int SECONDARY_IN_FLIGHT = JudgedRun.MAX_IN_FLIGHT;
    static final int PRIMARY_RPM = SECONDARY_RPM / 10;
    static final int PRIMARY_TPM = SECONDARY_TPM / 10;
    static final int PRIMARY_IN_FLIGHT = SECONDARY_IN_FLIGHT / 10;
    static final String PRIMARY_KEY_ENV = "SLUICE_PROVIDER_PRIMARY_KEY";
    static final String SECONDARY_KEY_ENV = "SLUICE_PROVIDER_SECONDARY_KEY";
    static final int TENANTS = JudgedRun.TENANTS;
    static final int PAGES_PER_BOOK = JudgedRun.PAGES_PER_BOOK;

    /**
     * {@code --count-factor=<x>|chars4 --seconds=<n> --think-ms=<n> --kill-primary-at=<s> --restore-primary-at=<s>
     * --run=<name> --provider-flags=<flag>,<flag> --strict}; a time of 0 means never.
     */
    record Options(
            String countFactor,
            int seconds,
            int thinkMs,
            int killAt,
            int restoreAt,
            String run,
            boolean strict,
            List<String> providerFlags) {
        Options {
            if (thinkMs < 0 || thinkMs > 60_000)
                throw new IllegalArgumentException("--think-ms must be in [0, 60000], was " + thinkMs);
            if (!countFactor.equals("chars4")
                    && !(Double.parseDouble(countFactor) >= 0.5 && Double.parseDouble(countFactor) <= 2)) {
                throw new IllegalArgumentException("--count-factor must be chars4 or in [0.5, 2], was " + countFactor);
            }
            if (seconds < 5 || seconds > 600)
                throw new IllegalArgumentException("--seconds must be in [5, 600], was " + seconds);
            // Both inside the crowd's uploads: a primary that returns when nobody sends has nothing to show.
            if (killAt < 0 || killAt >= seconds)
                throw new IllegalArgumentException(
                        "--kill-primary-at must be 0 (never) or in [1, --seconds), was " + killAt);
            if (restoreAt != 0 && (killAt == 0 || restoreAt <= killAt || restoreAt >= seconds)) {
                throw new IllegalArgumentException(
                        "--restore-primary-at needs --kill-primary-at and must be in (kill, --seconds), was "
                                + restoreAt);
            }
            for (String f : providerFlags) {
                if (!f.matches("--[a-z0-9-]+=[^\\s]+"))
                    throw new IllegalArgumentException("--provider-flags: not a flag: " + f);
                if (f.startsWith("--port=") || f.startsWith("--api-key="))
                    throw new IllegalArgumentException("the run sets " + f);
            }
            providerFlags = List.copyOf(providerFlags);
        }

        static Options parse(String args) {
            Map<String, String> o = JudgedRun.options(
                    args,
                    "count-factor",
                    "1.15",
                    "seconds",
                    "90",
                    "think-ms",
                    String.valueOf(JudgedRun.THINK.toMillis()),
                    "kill-primary-at",
                    "0",
                    "restore-primary-at",
                    "0");
            boolean strict = o.containsKey("strict");
            int seconds = Integer.parseInt(o.get("seconds"));
            int kill = Integer.parseInt(o.get("kill-primary-at"));
            int restore = Integer.parseInt(o.get("restore-primary-at"));
            int think = Integer.parseInt(o.get("think-ms"));
            String run = o.getOrDefault(
                    "run",
                    "two-f" + o.get("count-factor") + "-" + seconds + "s"
                            + (think != JudgedRun.THINK.toMillis() ? "-think" + think : "")
                            + (kill > 0 ? "-kill" + kill : "") + (restore > 0 ? "-restore" + restore : ""));
            String flags = o.getOrDefault("provider-flags", "");
            return new Options(
                    o.get("count-factor"),
                    seconds,
                    think,
                    kill,
                    restore,
                    run,
                    strict,
                    flags.isEmpty() ? List.of() : List.of(flags.split(",")));
        }
    }

    /** What the run did to the primary, in ms since the crowd started (-1: not done), and its stats of each life. */
    static final class PrimaryLife {
        final AtomicReference<IndependentProvider> process = new AtomicReference<>();
        final List<JsonNode> deadLives = new CopyOnWriteArrayList<>();
        final AtomicLong killedAtMs = new AtomicLong(-1);
        final AtomicLong restoredAtMs = new AtomicLong(-1);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void run() throws Exception {
        assumeTrue(IndependentProvider.nodeAvailable(), "node 18+ is needed for the independent provider");
        Options opt = Options.parse(System.getProperty("judged.args", ""));
        long began = System.nanoTime();
        Path out = Path.of("target/judged");
        Files.createDirectories(out);

        // Each provider checks its own key: a call the gateway sent to one with the other's key would be a 401.
        String primaryKey = "sk-primary-" + ApiKeys.generate();
        String secondaryKey = "sk-secondary-" + ApiKeys.generate();
        List<String> common = List.of(
                "--latency-ms=2000",
                "--jitter=0.1",
                "--count-factor=" + String.format(Locale.ROOT, "%.6f", JudgedRun.providerFactor(opt.countFactor())));
        List<String> primaryFlags =
                flags(common, PRIMARY_RPM, PRIMARY_TPM, PRIMARY_IN_FLIGHT, 43, primaryKey, opt.providerFlags());
        List<String> secondaryFlags =
                flags(common, SECONDARY_RPM, SECONDARY_TPM, SECONDARY_IN_FLIGHT, 42, secondaryKey, opt.providerFlags());
        PrimaryLife primary = new PrimaryLife();
        GatewayReplica gateway = null;
        Disposable schedule = null;
        try (IndependentProvider secondary = IndependentProvider.start(secondaryFlags.toArray(String[]::new))) {
            primary.process.set(IndependentProvider.start(primaryFlags.toArray(String[]::new)));
            int primaryPort = primary.process.get().port();
            Path tiers = TwoProviders.write(
                    out.resolve(opt.run() + "-tiers.yaml"),
                    new TwoProviders.Provider(
                            PRIMARY,
                            primary.process.get().baseUrl(),
                            PRIMARY_KEY_ENV,
                            PRIMARY_RPM,
                            PRIMARY_TPM,
                            PRIMARY_IN_FLIGHT),
                    new TwoProviders.Provider(
                            SECONDARY,
                            secondary.baseUrl(),
                            SECONDARY_KEY_ENV,
                            SECONDARY_RPM,
                            SECONDARY_TPM,
                            SECONDARY_IN_FLIGHT),
                    SeedCrowd.HEADROOM);
            // Configured as an operator would: the environment names the tiers file and holds the providers' keys.
            gateway = GatewayReplica.builder()
                    .environment("SLUICE_TIERS_PATH", tiers)
                    .environment(PRIMARY_KEY_ENV, primaryKey)
                    .environment(SECONDARY_KEY_ENV, secondaryKey)
                    .properties("spring.main.banner-mode=off", "server.shutdown=immediate")
                    .start();
            GatewayReplica g = gateway;
            Map<String, String> keys = new LinkedHashMap<>();
            for (int t = 1; t <= TENANTS; t++) keys.put("tenant-" + t, SeedCrowd.tenant(g, "tenant-" + t));

            try (Client client = new Client(TENANTS * PAGES_PER_BOOK + 100, Duration.ofSeconds(30))) {
                client.warm(TENANTS * PAGES_PER_BOOK, g.port());
                secondary.reset();
                primary.process.get().reset();
                long start = System.nanoTime();
                List<Integer> queueDepth = Collections.synchronizedList(new ArrayList<>());
                Disposable sampler = Flux.interval(Duration.ofSeconds(1), Duration.ofSeconds(1))
                        .subscribe(tick -> queueDepth.add((int) JudgedRun.gauge(g, "sluice.queue.depth")));
                schedule = schedule(opt, primary, primaryPort, primaryFlags, start);
                ConcurrentLinkedQueue<Reply> replies = new ConcurrentLinkedQueue<>();
                long stopAt = start + TimeUnit.SECONDS.toNanos(opt.seconds());
                Flux.fromIterable(keys.entrySet())
                        .flatMap(
                                e -> JudgedRun.tenant(
                                        client,
                                        e.getKey(),
                                        e.getValue(),
                                        g.port(),
                                        1,
                                        start,
                                        stopAt,
                                        Duration.ofMillis(opt.thinkMs()),
                                        false,
                                        replies),
                                TENANTS)
                        .then()
                        .block(Duration.ofSeconds(opt.seconds() + 600L));
                long crowdMs = SeedCrowd.sinceMs(start);
                sampler.dispose();
                List<JsonNode> primaryLives = new ArrayList<>(primary.deadLives);
                primaryLives.add(primary.process.get().stats());
                Map<String, Object> report = report(
                        opt,
                        List.copyOf(replies),
                        primaryLives,
                        secondary.stats(),
                        primary,
                        byProviderAndStatus(g, "sluice.upstream.responses"),
                        byProviderAndStatus(g, "sluice.upstream.retries"),
                        List.copyOf(queueDepth),
                        crowdMs,
                        SeedCrowd.sinceMs(began));
                write(out, opt.run(), report);
                if (opt.strict()) {
                    assertThat(report.get("judged"))
                            .as("judged (see the table)")
                            .isEqualTo("PASS");
                }
            }
        } finally {
            if (schedule != null) schedule.dispose();
            if (gateway != null) gateway.close();
            IndependentProvider p = primary.process.get();
            if (p != null) p.close();
        }
    }

    static List<String> flags(
            List<String> common, int rpm, int tpm, int inFlight, int seed, String key, List<String> extra) {
        List<String> f = new ArrayList<>(common);
        f.addAll(List.of(
                "--rpm=" + rpm, "--tpm=" + tpm, "--in-flight=" + inFlight, "--seed=" + seed, "--api-key=" + key));
        f.addAll(extra); // later flags win in the provider
        return f;
    }

    /** The kill (its stats first: the process takes them with it) and the return on the same port, off the crowd's threads. */
    static Disposable schedule(Options opt, PrimaryLife primary, int port, List<String> flags, long start) {
        if (opt.killAt() == 0) return null;
        Mono<Void> kill = Mono.delay(Duration.ofSeconds(opt.killAt()), Schedulers.boundedElastic())
                .doOnNext(x -> {
                    IndependentProvider p = primary.process.get();
                    primary.deadLives.add(p.stats());
                    primary.killedAtMs.set(SeedCrowd.sinceMs(start));
                    p.kill();
                    System.out.println("[judged] primary killed at " + primary.killedAtMs.get() + " ms");
                })
                .then();
        Mono<Void> restore = opt.restoreAt() == 0
                ? Mono.empty()
                : Mono.defer(() -> Mono.delay(
                                Duration.ofNanos(Math.max(
                                        0, start + TimeUnit.SECONDS.toNanos(opt.restoreAt()) - System.nanoTime())),
                                Schedulers.boundedElastic()))
                        .doOnNext(x -> {
                            primary.process.set(IndependentProvider.startOn(port, flags.toArray(String[]::new)));
                            primary.restoredAtMs.set(SeedCrowd.sinceMs(start)); // listening: it printed its port
                            System.out.println("[judged] primary back on port " + port + " at "
                                    + primary.restoredAtMs.get() + " ms");
                        })
                        .then();
        return kill.then(restore)
                .subscribe(null, e -> System.out.println("[judged] the primary's schedule failed: " + e));
    }

    /**
     * A counter by provider, then status: {@code sluice.upstream.responses} (what the gateway heard from each) or
     * {@code sluice.upstream.retries} (calls tried again; {@code failover}: on the next provider after a failure).
     */
    static Map<String, Map<String, Long>> byProviderAndStatus(GatewayReplica g, String counter) {
        Map<String, Map<String, Long>> r = new TreeMap<>();
        for (Counter c : g.bean(MeterRegistry.class).find(counter).counters()) {
            r.computeIfAbsent(Objects.toString(c.getId().getTag("provider")), k -> new TreeMap<>())
                    .merge(Objects.toString(c.getId().getTag("status")), (long) c.count(), Long::sum);
        }
        return r;
    }

    static long sum(List<JsonNode> lives, String field) {
        return lives.stream().mapToLong(s -> s.path(field).asLong()).sum();
    }

    static long max(List<JsonNode> lives, String field) {
        return lives.stream().mapToLong(s -> s.path(field).asLong()).max().orElse(0);
    }

    static Map<String, Object> provider(
            String name, List<Reply> replies, List<JsonNode> lives, int rpm, int tpm, int inFlight) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("limits", Map.of("rpm", rpm, "tpm", tpm, "inFlight", inFlight));
        p.put(
                "pagesServed",
                replies.stream()
                        .filter(r -> r.status() == 200 && name.equals(r.provider()))
                        .count());
        p.put("answered", sum(lives, "answered"));
        p.put("rejected429", sum(lives, "rejected429"));
        p.put("rejected503", sum(lives, "rejected503"));
        // Which limit refused (tokens or requests; a 503 is the calls in flight), and when: the first and by second.
        p.put("rejected429Tokens", sum(lives, "rejected429Tokens"));
        p.put("rejected429Requests", sum(lives, "rejected429Requests"));
        p.put(
                "first429AtMs",
                lives.stream()
                        .map(l -> l.path("first429AtMs"))
                        .filter(JsonNode::isNumber)
                        .map(JsonNode::asLong)
                        .findFirst()
                        .orElse(null));
        Map<String, String> refusedBySecond = new LinkedHashMap<>();
        for (int life = 0; life < lives.size(); life++) {
            JsonNode perSecond = lives.get(life).path("perSecond");
            for (int i = 0; i < perSecond.size(); i++) {
                long r429 = perSecond.get(i).path("r429").asLong();
                long r503 = perSecond.get(i).path("r503").asLong();
                if (r429 + r503 > 0)
                    refusedBySecond.put(
                            (lives.size() > 1 ? "life" + (life + 1) + ":" : "") + i + "s", r429 + "/" + r503);
            }
        }
        p.put("refused429And503BySecond", refusedBySecond);
        p.put("rejected4xx", sum(lives, "rejected4xx"));
        p.put("maxInFlight", max(lives, "maxInFlight"));
        p.put("busiest60sTokens", max(lives, "busiest60sTokens"));
        p.put("lives", lives.size());
        // Each life's seconds (from its start or reset): calls that arrived, the most in flight, its refusals.
        List<List<Map<String, Long>>> seconds = new ArrayList<>();
        for (JsonNode life : lives) {
            List<Map<String, Long>> rows = new ArrayList<>();
            life.path("perSecond")
                    .forEach(x -> rows.add(Map.of(
                            "requests",
                            x.path("requests").asLong(),
                            "inFlight",
                            x.path("inFlight").asLong(),
                            "r429",
                            x.path("r429").asLong(),
                            "r503",
                            x.path("r503").asLong())));
            seconds.add(rows);
        }
        p.put("perSecondByLife", seconds);
        return p;
    }

    /** The longest time without a served answer over [from, to], counting from {@code from} to the first one. */
    static long longestGap(List<Long> doneMs, long from, long to) {
        long last = from;
        long gap = 0;
        for (long t : doneMs) {
            if (t <= from) continue;
            if (t > to) break;
            gap = Math.max(gap, t - last);
            last = t;
        }
        return Math.max(gap, to - last);
    }

    static boolean busy(Reply x) {
        return x.status() == 503 && "gateway_busy".equals(errorCode(x));
    }

    /** The error's code, else its message, else the body's start: what a refusal said, for counting them by kind. */
    static String errorCode(Reply x) {
        try {
            JsonNode e = x.error();
            return e.path("code").asString(e.path("message").asString(""));
        } catch (RuntimeException notJson) {
            return x.body().substring(0, Math.min(60, x.body().length()));
        }
    }

    static Map<String, Object> report(
            Options opt,
            List<Reply> replies,
            List<JsonNode> primaryLives,
            JsonNode secondaryStats,
            PrimaryLife primary,
            Map<String, Map<String, Long>> upstream,
            Map<String, Map<String, Long>> retries,
            List<Integer> queueDepth,
            long crowdMs,
            long runMs) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("run", opt.run());
        r.put("at", Instant.now().toString());
        r.put("countFactor", opt.countFactor());
        r.put("seconds", opt.seconds());
        r.put("thinkMs", opt.thinkMs());
        r.put("killPrimaryAtS", opt.killAt());
        r.put("restorePrimaryAtS", opt.restoreAt());
        r.put("providerFlags", opt.providerFlags());
        Map<String, Object> providers = new LinkedHashMap<>();
        providers.put(PRIMARY, provider(PRIMARY, replies, primaryLives, PRIMARY_RPM, PRIMARY_TPM, PRIMARY_IN_FLIGHT));
        providers.put(
                SECONDARY,
                provider(
                        SECONDARY,
                        replies,
                        List.of(secondaryStats),
                        SECONDARY_RPM,
                        SECONDARY_TPM,
                        SECONDARY_IN_FLIGHT));
        r.put("providers", providers);
        r.put("gatewayUpstreamResponses", upstream);
        r.put("gatewayUpstreamRetries", retries);

        List<Reply> served = replies.stream().filter(x -> x.status() == 200).toList();
        r.put("pagesSent", replies.size());
        r.put("pagesServed", served.size());
        r.put(
                "servedWithoutProviderHeader",
                served.stream().filter(x -> x.provider() == null).count());
        Map<String, Long> refusals = new TreeMap<>();
        replies.stream()
                .filter(x -> x.status() != 200)
                .forEach(x -> refusals.merge(x.status() + " " + errorCode(x), 1L, Long::sum));
        r.put("refusalsByStatus", refusals);
        List<Long> perTenant = new ArrayList<>();
        for (int t = 1; t <= TENANTS; t++) {
            String id = "tenant-" + t;
            perTenant.add(
                    served.stream().filter(x -> x.page().tenant().equals(id)).count());
        }
        r.put("servedPagesPerTenant", perTenant);
        r.put("jainServedPages", SeedCrowd.jain(perTenant));
        r.put("books", SeedCrowd.bookTimeline(replies));

        // What the primary alone could have served in the time: its minute's tokens over a page's, or its requests.
        double meanPageTokens =
                served.stream().mapToLong(Reply::tokens).average().orElse(Double.NaN);
        double minutes = crowdMs / 60_000.0;
        double byTokens = PRIMARY_TPM * minutes / meanPageTokens;
        double byRequests = PRIMARY_RPM * minutes;
        r.put("meanPageTokens", meanPageTokens);
        r.put("crowdMinutes", minutes);
        r.put("primaryAloneByTokens", byTokens);
        r.put("primaryAloneByRequests", byRequests);
        r.put("primaryAlone", Math.min(byTokens, byRequests));

        List<Long> doneMs = served.stream().map(Reply::doneMs).sorted().toList();
        long killed = primary.killedAtMs.get();
        long restored = primary.restoredAtMs.get();
        if (killed >= 0) {
            long until = restored >= 0 ? restored : crowdMs;
            r.put("killedAtMs", killed);
            // What the kill cut: the most calls the primary had in flight in the second of its death (its own count).
            JsonNode lastSeconds = primaryLives.get(0).path("perSecond");
            r.put(
                    "primaryInFlightAtKill",
                    lastSeconds.isEmpty()
                            ? 0
                            : lastSeconds
                                    .get(lastSeconds.size() - 1)
                                    .path("inFlight")
                                    .asLong());
            r.put("longestGapAfterKillMs", longestGap(doneMs, killed, until));
            // The crowd's own rhythm (a minute's budget spent in seconds, then a wait for its turn) leaves gaps too:
            // the same span's longest gap before the kill is the yardstick.
            r.put("longestGapBeforeKillSameSpanMs", longestGap(doneMs, Math.max(0, killed - (until - killed)), killed));
            r.put(
                    "firstAnswerAfterKillMs",
                    doneMs.stream()
                            .filter(t -> t > killed)
                            .findFirst()
                            .map(t -> t - killed)
                            .orElse(null));
            r.put(
                    "firstSecondaryAnswerToAPageSentAfterKillMs",
                    served.stream()
                            .filter(x -> SECONDARY.equals(x.provider()) && x.sentMs() >= killed)
                            .mapToLong(Reply::doneMs)
                            .min()
                            .stream()
                            .map(t -> t - killed)
                            .boxed()
                            .findFirst()
                            .orElse(null));
            r.put(
                    "failedAnswersWhileDown",
                    replies.stream()
                            .filter(x -> x.status() != 200 && !busy(x) && x.doneMs() >= killed && x.doneMs() <= until)
                            .count());
            r.put(
                    "busyAnswersWhileDown",
                    replies.stream()
                            .filter(x -> busy(x) && x.doneMs() >= killed && x.doneMs() <= until)
                            .count());
        }
        if (restored >= 0) {
            r.put("restoredAtMs", restored);
            r.put(
                    "primaryServedAfterRestore",
                    served.stream()
                            .filter(x -> PRIMARY.equals(x.provider()) && x.doneMs() > restored)
                            .count());
            r.put(
                    "primaryFirstServedAfterRestoreMs",
                    served.stream()
                            .filter(x -> PRIMARY.equals(x.provider()) && x.doneMs() > restored)
                            .mapToLong(Reply::doneMs)
                            .min()
                            .stream()
                            .map(t -> t - restored)
                            .boxed()
                            .findFirst()
                            .orElse(null));
            // Its own count: the second it first took a call, since it started again.
            JsonNode seconds = primaryLives.get(primaryLives.size() - 1).path("perSecond");
            r.put(
                    "primaryFirstCallAfterRestoreS",
                    LongStream.range(0, seconds.size())
                            .filter(i -> seconds.get((int) i).path("requests").asLong() > 0)
                            .boxed()
                            .findFirst()
                            .orElse(null));
        }
        r.put("crowdMs", crowdMs);
        r.put("runMs", runMs);
        r.put("gatewayQueueDepthPerSecond", queueDepth);

        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) providers.get(PRIMARY);
        @SuppressWarnings("unchecked")
        Map<String, Object> s = (Map<String, Object>) providers.get(SECONDARY);
        boolean pass = (long) p.get("pagesServed") > 0
                && (long) s.get("pagesServed") > 0
                && (long) p.get("rejected429")
                                + (long) p.get("rejected503")
                                + (long) s.get("rejected429")
                                + (long) s.get("rejected503")
                        == 0
                && served.size() > Math.min(byTokens, byRequests)
                && (long) r.get("servedWithoutProviderHeader") == 0
                && (restored < 0 || (long) r.get("primaryServedAfterRestore") > 0);
        r.put("judged", pass ? "PASS" : "FAIL");
        return r;
    }

    @SuppressWarnings("unchecked")
    static void write(Path out, String run, Map<String, Object> r) throws Exception {
        Files.writeString(
                out.resolve(run + ".json"),
                JsonMapper.shared().writerWithDefaultPrettyPrinter().writeValueAsString(r));
        StringBuilder md = new StringBuilder();
        md.append("### Judged two-provider run `")
                .append(run)
                .append("` (")
                .append(r.get("judged"))
                .append(")\n\n");
        md.append("| figure | value | judged |\n|---|---|---|\n");
        for (var e : ((Map<String, Map<String, Object>>) r.get("providers")).entrySet()) {
            Map<String, Object> p = e.getValue();
            JudgedRun.row(
                    md,
                    e.getKey() + " " + p.get("limits") + ": pages served (X-Sluice-Provider)",
                    p.get("pagesServed")
                            + " (its own count: " + p.get("answered") + " answered, over " + p.get("lives")
                            + " life/lives; max in flight "
                            + p.get("maxInFlight") + ", busiest 60 s " + p.get("busiest60sTokens") + " tokens)",
                    "> 0");
            JudgedRun.row(
                    md,
                    e.getKey() + ": 429 / 503 it answered",
                    p.get("rejected429") + " / " + p.get("rejected503")
                            + " (429 on tokens " + p.get("rejected429Tokens") + ", on requests "
                            + p.get("rejected429Requests")
                            + "; first at " + p.get("first429AtMs") + " ms; 429/503 by second "
                            + p.get("refused429And503BySecond") + ")",
                    "0 / 0");
        }
        JudgedRun.row(
                md,
                "gateway's sluice.upstream.responses {provider: {status: n}}",
                String.valueOf(r.get("gatewayUpstreamResponses")),
                "");
        JudgedRun.row(
                md,
                "gateway's sluice.upstream.retries (failover: tried on the next provider)",
                String.valueOf(r.get("gatewayUpstreamRetries")),
                "");
        JudgedRun.row(md, "pages served / sent", r.get("pagesServed") + " / " + r.get("pagesSent"), "");
        JudgedRun.row(
                md,
                "primary alone in the time: min(TPM × min / page tokens, RPM × min)",
                String.format(
                        Locale.ROOT,
                        "min(%d × %.2f / %.0f, %d × %.2f) = %.0f",
                        PRIMARY_TPM,
                        (double) r.get("crowdMinutes"),
                        (double) r.get("meanPageTokens"),
                        PRIMARY_RPM,
                        (double) r.get("crowdMinutes"),
                        (double) r.get("primaryAlone")),
                "served > this");
        JudgedRun.row(
                md,
                "served answers without X-Sluice-Provider",
                String.valueOf(r.get("servedWithoutProviderHeader")),
                "0");
        JudgedRun.row(md, "refusals by status", String.valueOf(r.get("refusalsByStatus")), "");
        JudgedRun.row(
                md,
                "served pages per tenant (Jain)",
                r.get("servedPagesPerTenant")
                        + String.format(Locale.ROOT, " (%.4f)", (double) r.get("jainServedPages")),
                "");
        if (r.containsKey("killedAtMs")) {
            JudgedRun.row(
                    md,
                    "primary killed at; its calls in flight then",
                    r.get("killedAtMs") + " ms; " + r.get("primaryInFlightAtKill"),
                    "");
            JudgedRun.row(
                    md,
                    "first answer after the kill; first from the secondary to a page sent after it",
                    r.get("firstAnswerAfterKillMs") + " ms; " + r.get("firstSecondaryAnswerToAPageSentAfterKillMs")
                            + " ms",
                    "a few s");
            JudgedRun.row(
                    md,
                    "longest gap in answers after the kill (until the restore); same span before it",
                    r.get("longestGapAfterKillMs") + " ms; " + r.get("longestGapBeforeKillSameSpanMs") + " ms",
                    "");
            JudgedRun.row(
                    md,
                    "answers failed / busy while the primary was down",
                    r.get("failedAnswersWhileDown") + " / " + r.get("busyAnswersWhileDown"),
                    "");
        }
        if (r.containsKey("restoredAtMs")) {
            JudgedRun.row(
                    md,
                    "primary back at; its first call came (its count); first page it served reached the client",
                    r.get("restoredAtMs") + " ms; second " + r.get("primaryFirstCallAfterRestoreS")
                            + " of its new life; +" + r.get("primaryFirstServedAfterRestoreMs") + " ms",
                    "served again");
            JudgedRun.row(
                    md,
                    "pages the primary served after its return",
                    String.valueOf(r.get("primaryServedAfterRestore")),
                    "> 0");
        }
        JudgedRun.row(md, "crowd / whole run", r.get("crowdMs") + " ms / " + r.get("runMs") + " ms", "");
        Files.writeString(out.resolve(run + ".md"), md.toString());
        System.out.println("[judged] " + md.toString().replace("\n", "\n[judged] "));
    }
}
