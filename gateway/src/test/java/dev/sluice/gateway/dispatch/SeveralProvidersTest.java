package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * Several providers over real HTTP: each model goes along its route, with each provider's own
 * key and model name; a full provider spills to the next before any 429; a refused connection
 * or a 5xx is served by the next provider and counts against the failing one's circuit (a
 * refused connection costs the failing one's budget nothing); a
 * model no provider serves is a 404; the answer names who served it.
 */
@GatewayTest(
        properties = {
            "sluice.demo.tenants=true",
            "SLUICE_PROVIDER_PRIMARY_KEY=sk-primary",
            "SLUICE_PROVIDER_SECONDARY_KEY=sk-secondary",
            // A failing provider stays stepped around for the whole class: the circuit test counts its calls.
            "sluice.dispatch.failover.cooldown=10m",
            "sluice.dispatch.failover.max-cooldown=10m"
        })
class SeveralProvidersTest {
    /** The primary's answers wait on this while {@link #HOLD} is set, so a test can keep its one slot busy. */
    static final Sinks.Empty<Void> RELEASE = Sinks.empty();

    static volatile boolean HOLD;

    @RegisterExtension
    static final FakeUpstreamExtension PRIMARY = FakeUpstreamExtension.start((req, res) -> {
        Mono<Void> gate = HOLD && req.body().contains("hold me") ? RELEASE.asMono() : Mono.empty();
        return gate.then(res.header("content-type", "application/json")
                .sendString(Mono.just(FakeUpstream.CHAT_ANSWER))
                .then());
    });
    /** The secondary answers a stream as a provider streams one, its usage in the last chunk. */
    static final String STREAM = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"
            + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":4,\"total_tokens\":12}}\n\n"
            + "data: [DONE]\n\n";

    @RegisterExtension
    static final FakeUpstreamExtension SECONDARY =
            FakeUpstreamExtension.start((req, res) -> req.body().contains("\"stream\":true")
                    ? res.header("content-type", "text/event-stream").sendString(Mono.just(STREAM))
                    : res.header("content-type", "application/json").sendString(Mono.just(FakeUpstream.CHAT_ANSWER)));

    @RegisterExtension
    static final FakeUpstreamExtension PUSHY = FakeUpstreamExtension.start((req, res) -> res.status(429)
            .header("retry-after", "30")
            .header("content-type", "application/json")
            .sendString(Mono.just("{\"error\":{\"message\":\"slow down\"}}")));

    @RegisterExtension
    static final FakeUpstreamExtension ERRORING = FakeUpstreamExtension.start((req, res) -> res.status(500)
            .header("content-type", "application/json")
            .sendString(Mono.just("{\"error\":\"account acct_123 broke\"}")));

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry registry) throws IOException {
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort(); // closed at once: nothing listens there
        }
        String tiers = """
                tiers:
                  pro: {tokens-per-minute: 1000000, requests-per-minute: 10000, priority: 2}
                  small:
                    tokens-per-minute: 1000
                    requests-per-minute: 100
                    priority: 3
                    downgrade: {gpt-4o: gpt-4o-mini}
                providers:
                  - name: primary
                    base-url: %s
                    api-key-env: SLUICE_PROVIDER_PRIMARY_KEY
                    models:
                      gpt-4o-mini: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 1, price-per-million-tokens: 1.0}
                      gpt-4o: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10, upstream-model: prod-gpt-4o}
                  - name: secondary
                    base-url: %s
                    api-key-env: SLUICE_PROVIDER_SECONDARY_KEY
                    models:
                      gpt-4o-mini: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 100, price-per-million-tokens: 2.0}
                      flaky: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 100}
                      broken: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 100}
                      limited: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 100}
                  - name: dead
                    base-url: http://127.0.0.1:%d/v1
                    models:
                      flaky: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10}
                  - name: pushy
                    base-url: %s
                    models:
                      limited: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10}
                  - name: erroring
                    base-url: %s
                    models:
                      broken: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10}
                routes:
                  gpt-4o-mini: [primary, secondary]
                  flaky: [dead, secondary]
                  broken: [erroring, secondary]
                  limited: [pushy, secondary]
                """.formatted(PRIMARY.baseUrl(), SECONDARY.baseUrl(), dead, PUSHY.baseUrl(), ERRORING.baseUrl());
        String file = TestTiers.written("several-providers/tiers.yaml", tiers + TestTiers.DEMO_PRO);
        registry.add("sluice.tiers.path", () -> file);
    }

    @AfterAll
    static void stop() {
        RELEASE.tryEmitEmpty();
    }

    @Autowired
    WebTestClient client;

    @Autowired
    MeterRegistry meters;

    @Autowired
    Dispatchers dispatchers;

    @Autowired
    ProviderBudgetStore store;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    TenantStore tenants;

    @Autowired
    ConfigRegistry config;

    EntityExchangeResult<String> chat(String model, String content) {
        return post(
                "sk-sluice-demo-pro",
                "{\"model\":\"" + model + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\""
                        + content + "\"}]}");
    }

    EntityExchangeResult<String> post(String key, String body) {
        return client.mutate()
                .responseTimeout(Duration.ofSeconds(20))
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectBody(String.class)
                .returnResult();
    }

    static String servedBy(EntityExchangeResult<String> r) {
        return r.getResponseHeaders().getFirst(DispatchFilter.PROVIDER_HEADER);
    }

    double count(String meter, String status, String provider) {
        var c = meters.find(meter)
                .tag("status", status)
                .tag("provider", provider)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void theFirstProviderOfTheRouteServesWithItsOwnKeyAndTheAnswerSaysSo() throws Exception {
        PRIMARY.requests().clear();
        EntityExchangeResult<String> r = chat("gpt-4o-mini", "hello");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(servedBy(r)).isEqualTo("primary");
        FakeUpstream.Recorded seen = PRIMARY.requests().poll(5, TimeUnit.SECONDS);
        assertThat(seen.headers().get("Authorization")).isEqualTo("Bearer sk-primary");
        assertThat(seen.path()).isEqualTo("/openai/v1/chat/completions");
    }

    @Test
    void aFullProviderSpillsToTheNextBeforeAny429() throws Exception {
        HOLD = true;
        try {
            Mono<EntityExchangeResult<String>> held = Mono.fromCallable(() -> chat("gpt-4o-mini", "hold me"))
                    .subscribeOn(Schedulers.boundedElastic())
                    .cache();
            held.subscribe();
            // The primary's one slot is taken by the held call: the next cannot start within the spill wait there.
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            PRIMARY.requests().stream().anyMatch(x -> x.body().contains("hold me")));
            SECONDARY.requests().clear();
            EntityExchangeResult<String> spilled = chat("gpt-4o-mini", "next");
            assertThat(spilled.getStatus().value()).isEqualTo(200);
            assertThat(servedBy(spilled)).isEqualTo("secondary");
            assertThat(SECONDARY.requests().poll(5, TimeUnit.SECONDS).headers().get("Authorization"))
                    .isEqualTo("Bearer sk-secondary");
            RELEASE.tryEmitEmpty();
            assertThat(servedBy(held.block(Duration.ofSeconds(10)))).isEqualTo("primary");
        } finally {
            HOLD = false;
            RELEASE.tryEmitEmpty();
        }
    }

    @Test
    void aProviderThatAnswers429IsPausedAndTheRequestSpillsToTheNextAtOnce() {
        long started = System.nanoTime();
        EntityExchangeResult<String> r = chat("limited", "hello");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(servedBy(r))
                .as("not back in the paused provider's line for 30 s")
                .isEqualTo("secondary");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(PUSHY.requests()).hasSize(1);
        assertThat(count("sluice.upstream.retries", "429", "pushy")).isEqualTo(1);
    }

    @Test
    void aProviderThatRefusesTheConnectionIsSteppedAroundWithinTheSameRequest() {
        double before = count("sluice.upstream.retries", "failover", "dead");
        EntityExchangeResult<String> r = chat("flaky", "hello");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(servedBy(r)).isEqualTo("secondary");
        assertThat(count("sluice.upstream.retries", "failover", "dead")).isEqualTo(before + 1);
        // Nothing reached the dead provider, so its minute keeps nothing of the attempt: no request, no token, no slot.
        ProviderDispatcher dead = dispatchers.all().stream()
                .filter(d -> d.key().equals("dead:flaky"))
                .findFirst()
                .orElseThrow();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            BudgetSnapshot budget = store.snapshot(dead.key(), dead.limits()).block();
            assertThat(budget.usedRequests()).isZero();
            assertThat(budget.usedTokens()).isZero();
            assertThat(budget.inFlight()).isZero();
        });
    }

    @Test
    void theTenantIsChargedOnceWhateverProviderServesAndThePriceIsTheServingProvidersOwn() {
        var tenant = TestTenants.create(tenants, "several", "pro");
        var pro = config.current().tier("pro").orElseThrow();
        var spend = meters.find("sluice.spend.usd").tag("tier", "pro").counter();
        double spentBefore = spend == null ? 0 : spend.count();
        EntityExchangeResult<String> r = post(
                tenant.key(),
                "{\"model\":\"flaky\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(servedBy(r)).as("the dead provider failed it first").isEqualTo("secondary");
        // The answer's usage is 9 tokens: charged once, settled to it, whatever the first attempt cost.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                limiter.peek(tenant.id(), pro).block().get(0).usedTokens())
                        .isEqualTo(9));
        assertThat(meters.find("sluice.spend.usd").tag("tier", "pro").counter().count() - spentBefore)
                .as("flaky has no price at secondary: 0")
                .isZero();
        EntityExchangeResult<String> priced = post(
                tenant.key(),
                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        double price = "primary".equals(servedBy(priced)) ? 1.0 : 2.0;
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(meters.find("sluice.spend.usd")
                                        .tag("tier", "pro")
                                        .counter()
                                        .count()
                                - spentBefore)
                        .isCloseTo(9 * price / 1_000_000.0, offset(1e-12)));
    }

    @Test
    void aStreamFailsOverWholeAndIsSettledFromTheServingProvidersUsage() {
        var tenant = TestTenants.create(tenants, "streamer", "pro");
        var pro = config.current().tier("pro").orElseThrow();
        // flaky goes to the dead provider first, then to the secondary. (Three calls in this class go to flaky; a
        // fourth would find the dead provider's circuit open and skip it.)
        double failovers = count("sluice.upstream.retries", "failover", "dead");
        EntityExchangeResult<String> r = post(
                tenant.key(),
                "{\"model\":\"flaky\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                        + "\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(servedBy(r)).isEqualTo("secondary");
        assertThat(r.getResponseHeaders().getContentType().toString()).startsWith("text/event-stream");
        assertThat(count("sluice.upstream.retries", "failover", "dead"))
                .as("it failed over")
                .isEqualTo(failovers + 1);
        assertThat(r.getResponseBody())
                .as("the secondary's stream, whole, and nothing else")
                .isEqualTo(STREAM);
        // Charged once: the estimate is replaced by the stream's usage (12 tokens), whatever the failed attempt cost.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                limiter.peek(tenant.id(), pro).block().get(0).usedTokens())
                        .isEqualTo(12));
    }

    @Test
    void aDowngradesTargetIsRoutedLikeAnyModel() throws Exception {
        var tenant = TestTenants.create(tenants, "downgraded", "small");
        PRIMARY.requests().clear();
        // 850 of the tier's 1 000 tokens a minute: above the ladder's 80 %, so gpt-4o goes as gpt-4o-mini.
        EntityExchangeResult<String> r = post(
                tenant.key(),
                "{\"model\":\"gpt-4o\",\"max_tokens\":840,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(r.getResponseHeaders().getFirst("X-Sluice-Degraded")).contains("to=gpt-4o-mini");
        assertThat(servedBy(r)).as("gpt-4o-mini's route").isEqualTo("primary");
        assertThat(PRIMARY.requests().poll(5, TimeUnit.SECONDS).body())
                .as("its own name there, not gpt-4o's upstream-model")
                .contains("\"model\":\"gpt-4o-mini\"");
    }

    @Test
    void a5xxIsServedByTheNextProviderAndThreeInARowOpenTheFailingOnesCircuit() {
        ERRORING.requests().clear();
        for (int i = 0; i < 3; i++) {
            EntityExchangeResult<String> r = chat("broken", "call " + i);
            assertThat(r.getStatus().value()).isEqualTo(200);
            assertThat(servedBy(r)).isEqualTo("secondary");
            assertThat(r.getResponseBody()).doesNotContain("acct_123");
            assertThat(r.getResponseHeaders().get("Content-Type"))
                    .as("the failed attempt's headers are gone")
                    .hasSize(1);
            assertThat(r.getResponseHeaders().get(DispatchFilter.PROVIDER_HEADER))
                    .hasSize(1);
        }
        assertThat(ERRORING.requests()).hasSize(3);
        assertThat(meters.find("sluice.provider.circuit")
                        .tag("provider", "erroring")
                        .gauge()
                        .value())
                .as("open")
                .isEqualTo(1.0);

        EntityExchangeResult<String> r = chat("broken", "after");
        assertThat(servedBy(r)).isEqualTo("secondary");
        assertThat(ERRORING.requests()).as("stepped around: not called again").hasSize(3);
        assertThat(meters.find("sluice.provider.circuit")
                        .tag("provider", "primary")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void eachProviderGetsTheModelUnderItsOwnName() throws Exception {
        PRIMARY.requests().clear();
        EntityExchangeResult<String> r = chat("gpt-4o", "hello");
        assertThat(r.getStatus().value()).isEqualTo(200);
        assertThat(servedBy(r)).isEqualTo("primary");
        assertThat(PRIMARY.requests().poll(5, TimeUnit.SECONDS).body()).contains("\"model\":\"prod-gpt-4o\"");
    }

    @Test
    void aModelNoProviderServesIsA404BeforeAnythingIsChargedOrSent() {
        SECONDARY.requests().clear();
        client.post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"claude-nope\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("model_not_found")
                .jsonPath("$.error.param")
                .isEqualTo("model");
        assertThat(SECONDARY.requests()).isEmpty();
    }

    @Test
    void theModelListIsTheUnionOfEveryProvidersModelsWithoutAnUpstreamCall() {
        client.get()
                .uri("/v1/models")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.data[*].id")
                .value(ids -> assertThat((List<Object>) ids)
                        .containsExactly("broken", "flaky", "gpt-4o", "gpt-4o-mini", "limited"))
                .jsonPath("$.data[?(@.id=='gpt-4o-mini')].owned_by")
                .isEqualTo("primary");
    }
}
