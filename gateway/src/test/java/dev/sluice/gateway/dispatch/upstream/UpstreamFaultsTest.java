package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A provider that misbehaves in each way production has shown: it hangs, stalls after one
 * chunk, cuts a stream, answers 500, 200 with garbage, 401 for the gateway's key, 503 with a
 * retry-after. Real HTTP both sides, the budget and quota in a real Redis. Each fault is
 * answered in the contract's shape without the provider's body; the tenant is charged what
 * the provider counted or, when it counted nothing, the prompt and the output really sent;
 * and no provider slot or lease is left behind.
 */
@RedisGatewayTest(
        properties = {
            "sluice.upstream.stream-idle-timeout=400ms",
            "sluice.upstream.body-timeout=600ms",
            "spring.cloud.gateway.server.webflux.httpclient.response-timeout=800ms"
        })
class UpstreamFaultsTest {
    static final String SECRET = "org-provider-secret";
    static final String CHUNK = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
            + "\"delta\":{\"content\":\"Hello world\"}}]}\n\n";
    static final String ANSWER = "{\"id\":\"ok\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
            + "{\"role\":\"assistant\",\"content\":\"hi\"}}],\"usage\":{\"prompt_tokens\":17,\"completion_tokens\":3,"
            + "\"total_tokens\":20}}";
    static final Pattern FAULT = Pattern.compile("fault:([a-z0-9-]+)");
    /** When each fault's calls reached the provider (System.nanoTime). */
    static final Map<String, List<Long>> CALLS = new ConcurrentHashMap<>();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
        Matcher m = FAULT.matcher(req.body());
        String fault = m.find() ? m.group(1) : "none";
        List<Long> calls = CALLS.computeIfAbsent(fault, f -> new CopyOnWriteArrayList<>());
        calls.add(System.nanoTime());
        return switch (fault) {
            case "hang" -> Mono.never();
            case "stall" ->
                res.header("content-type", "text/event-stream")
                        .sendString(Flux.just(CHUNK).concatWith(Flux.never()));
            case "cut" ->
                res.header("content-type", "text/event-stream")
                        .sendString(Flux.just(CHUNK).concatWith(Flux.error(new IOException("provider died"))));
            case "silent-body" ->
                res.header("content-type", "application/json").sendHeaders().then(Mono.never());
            case "500" ->
                res.status(500)
                        .header("content-type", "application/json")
                        .sendString(Mono.just("{\"error\":{\"message\":\"internal failure for " + SECRET + "\"}}"));
            case "garbage" ->
                res.status(200)
                        .header("content-type", "text/html")
                        .sendString(Mono.just("<html><body>Bad gateway at " + SECRET + "</body></html>"));
            case "garbage-json" ->
                res.status(200)
                        .header("content-type", "application/json")
                        .sendString(Mono.just("upstream connect error " + SECRET));
            case "401" ->
                res.status(401)
                        .header("content-type", "application/json")
                        .sendString(Mono.just(
                                "{\"error\":{\"message\":\"Incorrect API key provided: sk-prov-" + SECRET + "\"}}"));
            case "503" ->
                calls.size() == 1
                        ? res.status(503)
                                .header("retry-after-ms", "700")
                                .header("retry-after", "1")
                                .sendString(Mono.just("overloaded " + SECRET))
                        : res.header("content-type", "application/json").sendString(Mono.just(ANSWER));
            case "503-long" ->
                res.status(503).header("retry-after", "30").sendString(Mono.just("overloaded " + SECRET));
            default -> res.header("content-type", "application/json").sendString(Mono.just(ANSWER));
        };
    });

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    @Autowired
    ProviderBudgetStore budgets;

    @Autowired
    MeterRegistry meters;

    @Autowired
    TokenEstimator estimator;

    String tenantId;
    String key;
    int leasesBefore;

    @BeforeEach
    void freshTenant() {
        TestTenants.Created t = TestTenants.create(tenants, "fault", "pro");
        tenantId = t.id();
        key = t.key();
        leasesBefore = inFlightInRedis();
    }

    /** Whatever the fault, the provider slot comes back, here and in Redis. */
    @AfterEach
    void noSlotLeft() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(inFlightInRedis()).as("leases in Redis").isEqualTo(leasesBefore);
            var slots =
                    meters.find("sluice.inflight").tag("budget", "default:*").gauge(); // registered on first dispatch
            assertThat(slots == null ? 0 : slots.value()).as("slots here").isZero();
        });
    }

    @Test
    void aHungProviderIs504AndChargesThePrompt() {
        String body = body("hang", false);
        long start = System.nanoTime();
        ResponseEntity<String> r = post(body);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertError(r, 504, "upstream_timeout");
        assertThat(tookMs).as("cut at the response timeout (800 ms)").isBetween(700L, 3_000L);
        assertCharged(prompt(body));
        System.out.printf("[faults] hang: 504 after %d ms%n", tookMs);
    }

    @Test
    void aStreamThatStallsAfterOneChunkIsCutWithinTheIdleTimeout() {
        String body = body("stall", true);
        long[] chunkAt = {0};
        long start = System.nanoTime();
        String received = stream(body, chunkAt);
        long end = System.nanoTime();
        long cutAfterMs = (end - chunkAt[0]) / 1_000_000;

        assertThat(received)
                .startsWith(CHUNK)
                .contains("\"code\":\"upstream_timeout\"")
                .contains("\"type\":\"server_error\"");
        assertThat(cutAfterMs)
                .as("silence before the cut (idle timeout 400 ms)")
                .isBetween(350L, 1_500L);
        // No usage came, and the stalled provider may still be writing up to its cap: the reservation stands.
        assertCharged(prompt(body) + 1000);
        System.out.printf(
                "[faults] stall: stream cut %d ms after its last chunk (total %d ms)%n",
                cutAfterMs, (end - start) / 1_000_000);
    }

    @Test
    void aStreamTheProviderCutsEndsWithAnErrorEventAndChargesItsReservation() {
        String body = body("cut", true);
        String received = stream(body, new long[1]);

        assertThat(received)
                .startsWith(CHUNK)
                .contains("\"code\":\"upstream_error\"")
                .doesNotContain("provider died");
        assertCharged(prompt(body) + 1000); // no usage came: the cap the provider was given bounds what it billed
    }

    @Test
    void aBodyThatNeverComesIs504() {
        String body = body("silent-body", false);
        long start = System.nanoTime();
        ResponseEntity<String> r = post(body);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertError(r, 504, "upstream_timeout");
        assertThat(tookMs).as("body timeout 600 ms").isBetween(550L, 3_000L);
        assertCharged(prompt(body));
        System.out.printf("[faults] silent body: 504 after %d ms%n", tookMs);
    }

    @Test
    void aServerErrorIs502WithoutTheProvidersBody() {
        String body = body("500", false);
        assertError(post(body), 502, "upstream_error");
        assertCharged(prompt(body));
    }

    @Test
    void aNonJsonAnswerIs502() {
        String body = body("garbage", false);
        assertError(post(body), 502, "upstream_error");
        assertCharged(prompt(body));
    }

    @Test
    void garbageLabelledJsonIs502() {
        String body = body("garbage-json", false);
        assertError(post(body), 502, "upstream_error");
        assertCharged(prompt(body));
    }

    @Test
    void theProviderRefusingTheGatewaysKeyIs502NotTheTenants401() {
        String body = body("401", false);
        ResponseEntity<String> r = post(body);
        assertError(r, 502, "upstream_auth_failed");
        assertThat(r.getBody()).doesNotContain("sk-prov");
        assertCharged(prompt(body));
    }

    @Test
    void a503IsTriedAgainAfterItsRetryAfterAndCounted() {
        double retriesBefore = retries503();
        String body = body("503", false);
        ResponseEntity<String> r = post(body);

        assertThat(r.getStatusCode().value()).isEqualTo(200);
        assertThat(r.getBody()).isEqualTo(ANSWER);
        List<Long> calls = CALLS.get("503");
        assertThat(calls).hasSize(2);
        long gapMs = (calls.get(1) - calls.get(0)) / 1_000_000;
        assertThat(gapMs).as("waited the provider's retry-after-ms (700)").isGreaterThanOrEqualTo(700);
        assertThat(retries503() - retriesBefore).isEqualTo(1.0);
        assertCharged(20); // what the provider counted
        System.out.printf("[faults] 503 retry-after-ms 700: tried again after %d ms%n", gapMs);
    }

    @Test
    void a503WhoseRetryAfterPassesTheMaxWaitIsBusyAtOnceAndRefunded() {
        String body = body("503-long", false);
        long start = System.nanoTime();
        ResponseEntity<String> r = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .header("X-Sluice-Max-Wait", "5000")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(x -> x.toEntity(String.class))
                .block(Duration.ofSeconds(20));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertError(r, 503, "gateway_busy");
        assertThat(r.getHeaders().getFirst("Retry-After")).isEqualTo("30");
        assertThat(tookMs).isLessThan(3_000);
        assertCharged(0);
    }

    @Test
    void aMeterForRetriesExistsFromTheStart() {
        assertThat(meters.find("sluice.upstream.retries").tag("status", "503").counter())
                .isNotNull();
        assertThat(meters.find("sluice.upstream.retries").tag("status", "429").counter())
                .isNotNull();
    }

    // --- helpers

    static String body(String fault, boolean stream) {
        return "{\"model\":\"gpt-4o\",\"max_tokens\":1000" + (stream ? ",\"stream\":true" : "")
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"fault:" + fault + " please\"}]}";
    }

    ResponseEntity<String> post(String body) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(x -> x.toEntity(String.class))
                .block(Duration.ofSeconds(20));
    }

    /** The raw stream as the client got it; {@code chunkAt[0]}: when its last piece before the end arrived. */
    String stream(String body, long[] chunkAt) {
        List<String> parts = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToFlux(x -> {
                    assertThat(x.statusCode().value()).isEqualTo(200);
                    return x.bodyToFlux(DataBuffer.class);
                })
                .map(b -> {
                    String s = b.toString(StandardCharsets.UTF_8);
                    DataBufferUtils.release(b);
                    if (s.contains("Hello world")) chunkAt[0] = System.nanoTime();
                    return s;
                })
                .collectList()
                .block(Duration.ofSeconds(20));
        return String.join("", parts);
    }

    static void assertError(ResponseEntity<String> r, int status, String code) {
        assertThat(r.getStatusCode().value()).as(r.getBody()).isEqualTo(status);
        assertThat(r.getHeaders().getContentType().toString()).startsWith("application/json");
        assertThat(r.getBody())
                .contains("\"code\":\"" + code + "\"")
                .contains("\"type\":")
                .contains("\"param\":null")
                .doesNotContain(SECRET);
    }

    void assertCharged(long tokens) {
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(limiter.peek(
                                        tenantId, config.current().tier("pro").orElseThrow())
                                .block()
                                .get(0)
                                .usedTokens())
                        .isEqualTo(tokens));
    }

    long prompt(String body) {
        return estimator
                .estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024)
                .promptTokens();
    }

    double retries503() {
        return meters.find("sluice.upstream.retries")
                .tag("status", "503")
                .counter()
                .count();
    }

    int inFlightInRedis() {
        ProviderSettings provider = config.current().providers().get(0);
        return budgets.snapshot(
                        ProviderBudgetStore.key(provider, "gpt-4o"),
                        BudgetLimits.of(provider, "gpt-4o", Duration.ofMinutes(10)))
                .block(Duration.ofSeconds(5))
                .inFlight();
    }
}
