package dev.sluice.gateway.degrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.SpendUsage;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A tier with {@code usd-per-day: 0.01} on a provider at $3 per million tokens, through the whole
 * gateway over real HTTP on an injected clock: it serves about 3,333 tokens (each call's 250 tokens
 * settled at $0.00075), downgrades past 80 % of the budget, then answers 429 budget_exceeded with
 * Retry-After to midnight UTC, and serves again once the day has turned.
 */
@GatewayTest
@Import(SpendBudgetGatewayTest.Clocks.class)
class SpendBudgetGatewayTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** 18:00 UTC: six hours before the day turns. */
    static final long SIX_PM = Instant.parse("2026-12-06T18:00:00Z").toEpochMilli();

    static final FakeClock CLOCK = new FakeClock(SIX_PM);

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
        }
    }

    static final String ANSWER =
            "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":200,\"total_tokens\":250}}";

    /** A stream whose usage chunk (40 in, 60 out) comes last, as OpenAI sends it with include_usage. */
    static final String STREAM = "data: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"model\":\"split\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n"
            + "data: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"model\":\"split\",\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":60,\"total_tokens\":100}}\n\n"
            + "data: [DONE]\n\n";

    /**
     * Every call answered with 250 tokens of usage (50 in, 200 out): $0.00075 at $3 per million; a
     * streamed call with {@link #STREAM}.
     */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) ->
                    req.body().contains("\"stream\":true")
                            ? (req.body().contains("\"user\":\"sized\"")
                                            ? res.header(
                                                    "content-length",
                                                    String.valueOf(STREAM.getBytes(StandardCharsets.UTF_8).length))
                                            : res)
                                    .header("content-type", "text/event-stream")
                                    .sendString(Mono.just(STREAM))
                            : res.header("content-type", "application/json").sendString(Mono.just(ANSWER)))
            .clearedBeforeEachTest();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        String tiers = TestTiers.written("spend-budget/tiers.yaml", """
                tiers:
                  cents:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                    downgrade: {gpt-4o: gpt-4o-mini}
                    spend: {usd-per-day: 0.01, time-zone: UTC}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200, price-per-million-tokens: 3}
                      split:
                        requests-per-minute: 1500
                        tokens-per-minute: 300000
                        max-in-flight: 200
                        price-per-million-input-tokens: 1
                        price-per-million-output-tokens: 10
                """);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    record Answer(int status, HttpHeaders headers, String body) {
        JsonNode json() {
            return JSON.readTree(body);
        }
    }

    Answer chat(TestTenants.Created who) {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o\",\"max_tokens\":200,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.bodyToMono(String.class)
                        .defaultIfEmpty("")
                        .map(body ->
                                new Answer(r.statusCode().value(), r.headers().asHttpHeaders(), body)))
                .block(Duration.ofSeconds(30));
    }

    SpendUsage today(TestTenants.Created who) {
        Tier cents = config.current().tier("cents").orElseThrow();
        return limiter.peekAll(who.id(), cents, "gpt-4o")
                .block(Duration.ofSeconds(5))
                .spends()
                .get(0);
    }

    @Test
    void aCentADayAtThreeDollarsAMillionServesAbout3333TokensThen429UntilMidnight() {
        CLOCK.set(SIX_PM);
        TestTenants.Created tenant = TestTenants.create(tenants, "spender", "cents");
        long served = 0;
        boolean downgraded = false;
        Answer last = null;
        for (int call = 0; call < 40; call++) {
            last = chat(tenant);
            if (last.status() != 200) break;
            served += 250;
            long spent = served * 3; // micro-dollars, $3 per million tokens
            // The settlement (the usage at the serving provider's price) lands after the answer.
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(today(tenant).usedMicros()).isEqualTo(spent));
            String remaining = last.headers().getFirst("X-Sluice-Budget-Remaining-USD-Day");
            assertThat(remaining)
                    .as("the budget left after this call's reservation")
                    .isNotNull();
            String degraded = last.headers().getFirst("X-Sluice-Degraded");
            if (degraded != null) {
                assertThat(degraded).contains("model-downgraded; from=gpt-4o; to=gpt-4o-mini");
                downgraded = true;
            }
        }
        assertThat(served).as("about 3,333 tokens: $0.01 at $3 per million").isBetween(3_000L, 3_333L);
        assertThat(downgraded)
                .as("past 80 %% of the budget the cheaper model is sent")
                .isTrue();
        assertThat(last.status()).as(last.body()).isEqualTo(429);
        JsonNode error = last.json().get("error");
        assertThat(error.get("code").asString()).isEqualTo("budget_exceeded");
        assertThat(error.get("message").asString())
                .contains("the tier's daily spend budget of $0.01")
                .contains("tier 'cents'");
        assertThat(last.headers().getFirst(HttpHeaders.RETRY_AFTER))
                .as("six hours to midnight UTC on the injected clock")
                .isEqualTo(Long.toString(6 * 3600));
        assertThat(last.headers().getFirst("retry-after-ms")).isEqualTo(Long.toString(6 * 3_600_000L));
        assertThat(UPSTREAM.requests())
                .as("the refused call never reached the provider")
                .hasSize((int) (served / 250));
        assertThat(today(tenant).usedMicros()).as("the refusal charged nothing").isEqualTo(served * 3);

        CLOCK.set(Instant.parse("2026-12-07T00:00:00Z").toEpochMilli());
        Answer nextDay = chat(tenant);
        assertThat(nextDay.status()).as("the day has turned: " + nextDay.body()).isEqualTo(200);
        assertThat(nextDay.headers().getFirst("X-Sluice-Degraded")).isNull();
    }

    @Test
    void aTenantsOwnBudgetIsChargedInsteadOfItsTiersAndNamedAsItsOwn() {
        CLOCK.set(SIX_PM);
        TestTenants.Created tenant = TestTenants.create(tenants, "own-budget", "cents");
        // $0.002 a day of its own: two calls of $0.00075, then less is left than a call reserves.
        tenants.save(new Tenant(tenant.id(), "cents", false, new SpendBudget(2_000, 0, SpendBudget.UTC)))
                .block();
        Tier cents = config.current().tier("cents").orElseThrow();
        SpendBudget own = new SpendBudget(2_000, 0, SpendBudget.UTC);
        for (int call = 1; call <= 2; call++) {
            Answer ok = chat(tenant);
            assertThat(ok.status()).as(ok.body()).isEqualTo(200);
            long spent = 750L * call;
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(limiter.peekAll(tenant.id(), cents, own, "gpt-4o")
                                    .block(Duration.ofSeconds(5))
                                    .spends()
                                    .get(0)
                                    .usedMicros())
                            .isEqualTo(spent));
        }
        Answer refused = chat(tenant);
        assertThat(refused.status()).as(refused.body()).isEqualTo(429);
        assertThat(refused.json().get("error").get("message").asString())
                .contains("the tenant's daily spend budget of $0.002");
        assertThat(refused.headers().getFirst("X-Sluice-Budget-Remaining-USD-Day"))
                .isEqualTo("0.0005");
    }

    @Test
    void aStreamIsSettledFromItsUsageWithInputAndOutputPricedApart() {
        CLOCK.set(SIX_PM);
        TestTenants.Created tenant = TestTenants.create(tenants, "streamer", "cents");
        String body = WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"split\",\"max_tokens\":100,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(30));
        assertThat(body).contains("[DONE]");
        Tier cents = config.current().tier("cents").orElseThrow();
        // 40 prompt tokens at $1 per million and 60 output tokens at $10 per million: 40 + 600 micro-dollars.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(limiter.peekAll(tenant.id(), cents, "split")
                                .block(Duration.ofSeconds(5))
                                .spends()
                                .get(0)
                                .usedMicros())
                        .isEqualTo(640));
    }

    /**
     * A provider that sends its event stream with a Content-Length: the gateway asked for the usage
     * chunk itself and takes it out, so the length it forwards would promise bytes that never come.
     */
    @Test
    void aSizedStreamWhoseUsageChunkIsTakenOutEndsForTheClient() {
        CLOCK.set(SIX_PM);
        TestTenants.Created tenant = TestTenants.create(tenants, "sized-streamer", "cents");
        String body = WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + tenant.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"split\",\"max_tokens\":100,\"stream\":true,\"user\":\"sized\","
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        assertThat(body).contains("[DONE]").doesNotContain("\"usage\"");
    }
}
