package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.lab.scenario.ScaledClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 18 end to end: clients that behave like real ones talk to the packaged gateway over real
 * HTTP, on free-tier keys (10,000 tokens a minute), while the tenant quota and the abuse sampler
 * run on the lab's {@link ScaledClock}, 30 times faster than the wall (a minute in 2 s).
 * The three clients share one run of 17 minutes (34 s), after a warm-up:
 * <ul>
 *   <li>flat-lined: two workers on one key, about 808 tokens a request (random sizes), the next one
 *       0.5 s after an answer, after a 429 the {@code retry-after-ms} it named; it never stops;</li>
 *   <li>burst-and-idle: every third minute a burst to 100% (some refused), then idle;</li>
 *   <li>steady: about 80%, a request of 700-900 tokens every 6 s or so.</li>
 * </ul>
 * The ladder's hold is off here ({@code max-delay-ms: 0}): it is a real timer, which a scaled
 * clock would stretch sixty-fold. Holds are counted in {@link CeilingSignalTest}.
 */
@GatewayTest(
        properties = {
            "sluice.lab.completion-tokens=100000", // the lab writes max_tokens: usage = estimate
            "sluice.lab.latency=1ms",
            "sluice.lab.latency-jitter=0",
            "sluice.lab.tokens-per-minute=1000000000",
            "sluice.lab.requests-per-minute=10000000",
            "sluice.abuse.tick=10ms", // a second of the scaled clock is 33 ms of the wall
            "sluice.admin.user=ops",
            "sluice.admin.password=issue 18"
        })
class FlatLineGatewayTest {
    static final double FACTOR = 30;
    static final ScaledClock CLOCK = new ScaledClock(FACTOR);
    static final long MIN = 60_000L;
    static final int MINUTES = 17;

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock scaledQuotaClock() {
            return new QuotaClock(CLOCK);
        }
    }

    /** tiers.yaml as shipped, but no hold on the ladder and a provider roomy enough that only the tenants' limits bind. */
    @DynamicPropertySource
    static void tiers(DynamicPropertyRegistry registry) throws IOException {
        String yaml = Files.readString(Path.of("../tiers.yaml"))
                .replace("tokens-per-minute: 300000", "tokens-per-minute: 1000000000")
                .replace("requests-per-minute: 1500", "requests-per-minute: 10000000")
                .replace("max-delay-ms: 2000", "max-delay-ms: 0");
        Path file = Path.of("target", "flat-line-tiers.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml);
        registry.add("sluice.tiers.path", () -> file.toAbsolutePath().toString());
    }

    /** What a run left behind, shared by the tests (one run of the three clients). */
    record Run(long startMs, Map<String, String> tenants) {}

    static Run run;

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    FlagStore flags;

    @Autowired
    UsageHistory history;

    WebClient web() {
        return WebClient.create("http://127.0.0.1:" + port);
    }

    /** One request; its status and, for a 429, the {@code retry-after-ms} it named (else -1). */
    /** What the estimator counts for the prompt "hi" with its chat framing: a request's estimate is max_tokens + this. */
    static final int PROMPT_TOKENS = 8;

    Mono<long[]> send(String key, int maxTokens) {
        return web().post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.releaseBody().thenReturn(new long[] {
                    r.statusCode().value(),
                    r.statusCode().value() == 429
                            ? Long.parseLong(r.headers().asHttpHeaders().getFirst("retry-after-ms"))
                            : -1
                }));
    }

    /** Waits until {@code atMs} on the scaled clock (a timer of the wall's equivalent, not a sleep). */
    static Mono<Long> at(long atMs) {
        return Mono.delay(CLOCK.realMillis(atMs - CLOCK.millis()));
    }

    /**
     * The flat-lined client: {@code workers} loops on one key, each sending about 808 tokens, the next
     * request 0.5 s after an answer or, after a 429, when its {@code retry-after-ms} says; never stopping.
     */
    Mono<Void> flatLined(String key, int workers, long startMs, long endMs, Random r) {
        return flatLined(key, workers, startMs, endMs, () -> 750 + r.nextInt(97));
    }

    /** The same client with its own request sizes. */
    Mono<Void> flatLined(String key, int workers, long startMs, long endMs, IntSupplier maxTokens) {
        Mono<Long> one = Mono.defer(() -> send(key, maxTokens.getAsInt()))
                .flatMap(a -> Mono.delay(CLOCK.realMillis(a[0] == 429 ? a[1] : 500)));
        return Flux.range(0, workers)
                .flatMap(w -> at(startMs + w * 200L)
                        .then(one.repeat(() -> CLOCK.millis() < endMs).then()))
                .then();
    }

    /** Every third minute, from its tenth second, 14 requests of about 800 at once (100% and two refused); idle between. */
    Mono<Void> burstAndIdle(String key, long startMs, long endMs, Random r) {
        return Flux.range(0, (int) ((endMs - startMs) / (3 * MIN)) + 1)
                .map(j -> startMs + 10_000 + j * 3 * MIN)
                .filter(t -> t < endMs)
                .concatMap(t -> at(t).thenMany(Flux.range(0, 14).flatMap(i -> send(key, 750 + r.nextInt(97)))))
                .then();
    }

    /** About 80%: a request of 700-900 tokens every 6 s, give or take half a second, on its schedule whatever the answers take. */
    Mono<Void> steady(String key, long startMs, long endMs, Random r) {
        return Flux.range(0, (int) ((endMs - startMs) / 6_000))
                .map(k -> startMs + k * 6_000L + r.nextInt(1_001) - 500)
                .filter(t -> t >= startMs && t < endMs)
                .concatMap(t ->
                        at(t).doOnNext(x -> send(key, 690 + r.nextInt(201)).subscribe()))
                .then();
    }

    @BeforeEach
    synchronized void runOnce() {
        if (run != null) return;
        TestTenants.Created f = TestTenants.create(tenants, "flat", "free");
        TestTenants.Created b = TestTenants.create(tenants, "bursty", "free");
        TestTenants.Created st = TestTenants.create(tenants, "steady", "free");
        // Quantisation: a window holds whole requests. At 1/11 of the budget a full window reads 0.91 at
        // best, at 1/7 it holds six (0.86) and never seven, so a snapshot never reaches the threshold.
        TestTenants.Created eleventh = TestTenants.create(tenants, "eleventh", "free");
        TestTenants.Created seventh = TestTenants.create(tenants, "seventh", "free");
        // Warm the gateway up first (a cold JIT answers in tens of ms, seconds on this clock), on a tenant of its own.
        String warm = TestTenants.create(tenants, "warm-up", "enterprise").key();
        Flux.range(0, 120).flatMap(i -> send(warm, 10), 4).blockLast(Duration.ofSeconds(60));
        long start = ActivityBuffer.minuteOf(CLOCK.millis()) + MIN; // on a whole minute, like the detector's
        long end = start + MINUTES * MIN;
        Mono.when(
                        flatLined(f.key(), 2, start, end, new Random(18)),
                        burstAndIdle(b.key(), start, end, new Random(3)),
                        steady(st.key(), start, end, new Random(80)),
                        // a hair over 1/11 and 1/7 (910 and 1,430 tokens): ten and six whole requests fit, never eleven
                        // or seven
                        flatLined(eleventh.key(), 2, start, end, () -> 910 - PROMPT_TOKENS),
                        flatLined(seventh.key(), 2, start, end, () -> 1_430 - PROMPT_TOKENS))
                .block(Duration.ofSeconds(120));
        // the last minute is sampled once it has ended and settled
        await().atMost(Duration.ofSeconds(20))
                .until(() -> history.since(st.id(), end - MIN).hasElements().block());
        run = new Run(
                start,
                Map.of(
                        "flat",
                        f.id(),
                        "bursty",
                        b.id(),
                        "steady",
                        st.id(),
                        "eleventh",
                        eleventh.id(),
                        "seventh",
                        seventh.id()));
    }

    List<Flag> flagsOf(String tenant) {
        return flags.list(null, 100)
                .filter(f -> f.tenantId().equals(tenant))
                .collectList()
                .block();
    }

    List<UsageSample> series(String tenant) {
        return history.since(tenant, run.startMs()).collectList().block();
    }

    @Test
    void theFlatLinedClientIsFlaggedAtItsFifteenthMinuteNotBefore() {
        String tenant = run.tenants().get("flat");
        List<Flag> f = flagsOf(tenant);
        assertThat(f).hasSize(1);
        Flag flag = f.get(0);
        assertThat(flag.runStart().toEpochMilli()).isEqualTo(run.startMs());
        assertThat(flag.runMinutes()).isEqualTo(15);
        // opened once the fifteenth minute had ended and settled (2 s), not a minute earlier
        assertThat(flag.openedAt().toEpochMilli())
                .isBetween(run.startMs() + 15 * MIN, run.startMs() + 15 * MIN + 20_000);
        List<UsageSample> s = series(tenant);
        assertThat(s).hasSize(MINUTES);
        assertThat(s).allSatisfy(x -> {
            assertThat(x.pressure()).isGreaterThanOrEqualTo(0.9);
            assertThat(x.ceiling().window()).isEqualTo("minute");
            assertThat(x.ceiling().reason()).isIn(Ceiling.REFUSED, Ceiling.ROOM);
        });
        assertThat(s.stream().mapToLong(x -> x.ceiling().refused()).sum()).isGreaterThanOrEqualTo(MINUTES - 1);
    }

    @Test
    void clientsSendingAnEleventhOrASeventhOfTheBudgetAreFlaggedTheSameWay() {
        for (String which : List.of("eleventh", "seventh")) {
            String tenant = run.tenants().get(which);
            List<Flag> f = flagsOf(tenant);
            assertThat(f).as(which).hasSize(1);
            assertThat(f.get(0).runStart().toEpochMilli()).as(which).isEqualTo(run.startMs());
            assertThat(f.get(0).runMinutes()).as(which).isEqualTo(15);
            assertThat(f.get(0).openedAt().toEpochMilli())
                    .as(which)
                    .isBetween(run.startMs() + 15 * MIN, run.startMs() + 15 * MIN + 20_000);
        }
        // The seventh's snapshots never reached the threshold: only the pressure signal sees it.
        assertThat(series(run.tenants().get("seventh")))
                .allSatisfy(x -> assertThat(x.utilisation()).isLessThan(0.9));
    }

    @Test
    void theBurstAndIdleClientIsNeverFlagged() {
        String tenant = run.tenants().get("bursty");
        assertThat(flagsOf(tenant)).isEmpty();
        List<UsageSample> s = series(tenant);
        assertThat(s).hasSizeBetween(MINUTES / 3, MINUTES / 3 + 1); // a burst every third minute, idle between
        assertThat(s)
                .allSatisfy(
                        x -> assertThat(x.pressure()).isGreaterThanOrEqualTo(0.9)); // each burst reached the ceiling
    }

    @Test
    void theSteadyClientAtAboutEightyPercentIsNeverFlagged() {
        String tenant = run.tenants().get("steady");
        assertThat(flagsOf(tenant)).isEmpty();
        List<UsageSample> s = series(tenant);
        assertThat(s).hasSize(MINUTES);
        assertThat(s.stream().mapToDouble(x -> x.ceiling().fill()).average().orElseThrow())
                .isBetween(0.7, 0.9);
        assertThat(s.stream().filter(x -> x.pressure() >= 0.9).count()).isLessThan(MINUTES / 2);
    }

    @Test
    void theConsoleSeriesCarriesWhatTheSignalMeasured() {
        String tenant = run.tenants().get("flat");
        Map<String, Object> body = WebClient.create("http://127.0.0.1:" + port)
                .get()
                .uri("/admin/api/tenants/{id}/usage?hours=1", tenant)
                .headers(h -> h.setBasicAuth("ops", "issue 18"))
                .retrieve()
                .bodyToMono(new ParameterizedTypeReference<Map<String, Object>>() {})
                .block(Duration.ofSeconds(10));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> points = (List<Map<String, Object>>) body.get("points");
        assertThat(points).hasSizeGreaterThanOrEqualTo(MINUTES);
        Map<String, Object> last = points.get(points.size() - 1);
        assertThat(last)
                .containsKeys(
                        "minute",
                        "tier",
                        "tokens",
                        "requests",
                        "utilisation",
                        "window",
                        "stages",
                        "pressure",
                        "ceiling");
        @SuppressWarnings("unchecked")
        Map<String, Object> ceiling = (Map<String, Object>) last.get("ceiling");
        assertThat(ceiling)
                .containsKeys("window", "reason", "fill", "peak", "roomTokens", "typicalTokens", "refused", "held");
        assertThat(((Number) last.get("pressure")).doubleValue()).isGreaterThanOrEqualTo(0.9);
    }
}
