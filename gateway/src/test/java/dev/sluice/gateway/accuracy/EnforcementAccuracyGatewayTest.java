package dev.sluice.gateway.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The accuracy meters through the whole gateway over real HTTP: two calls reserve 1,300 tokens
 * each of a 3,000-token minute and are held at the provider; a third is refused 429. When the two
 * settle at 100 tokens each, the window would have had room: the refusal is counted unnecessary,
 * and each call's settled/reserved ratio and the provider's tokens are recorded. A refusal with
 * nothing in flight is necessary at once.
 */
@GatewayTest
class EnforcementAccuracyGatewayTest {
    static final String ANSWER =
            "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":80,\"total_tokens\":100}}";

    /** Answers wait for this gate: the test holds calls in flight at the provider. */
    static final AtomicReference<Sinks.Empty<Void>> GATE = new AtomicReference<>(Sinks.empty());

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> GATE.get()
                    .asMono()
                    .then(Mono.defer(() -> Mono.from(
                            res.header("content-type", "application/json").sendString(Mono.just(ANSWER))))))
            .clearedBeforeEachTest();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        String tiers = TestTiers.written("accuracy/tiers.yaml", """
                tiers:
                  small:
                    tokens-per-minute: 3000
                    requests-per-minute: 600
                    priority: 2
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    MeterRegistry meters;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    @BeforeEach
    void openTheGate() {
        GATE.get().tryEmitEmpty();
    }

    Mono<Integer> chat(TestTenants.Created who) {
        return chat(who, 1290);
    }

    Mono<Integer> chat(TestTenants.Created who, int maxTokens) {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()));
    }

    double refusals(String verdict) {
        return meters.counter(EnforcementAccuracy.REFUSALS, "tier", "small", "verdict", verdict)
                .count();
    }

    @Test
    void aRefusalTheSettlementsWouldHaveMadeRoomForIsCountedUnnecessary() {
        TestTenants.Created tenant = TestTenants.create(tenants, "over-reserver", "small");
        double unnecessary = refusals("unnecessary");
        double necessary = refusals("necessary");
        long ratiosBefore = meters.find(EnforcementAccuracy.SETTLED_OF_RESERVED)
                .tag("tier", "small")
                .tag("provider", "default")
                .summary()
                .count();
        double providerTokens = meters.counter(EnforcementAccuracy.PROVIDER_TOKENS, "provider", "default")
                .count();
        GATE.set(Sinks.empty());
        List<Mono<Integer>> held = List.of(chat(tenant).cache(), chat(tenant).cache());
        held.forEach(Mono::subscribe);
        await().atMost(Duration.ofSeconds(10)).until(() -> UPSTREAM.requests().size() == 2);

        assertThat(chat(tenant).block(Duration.ofSeconds(30))).isEqualTo(429);
        assertThat(refusals("unnecessary") + refusals("necessary"))
                .as("no verdict while the calls that filled the window are out")
                .isEqualTo(unnecessary + necessary);

        GATE.get().tryEmitEmpty();
        for (Mono<Integer> call : held)
            assertThat(call.block(Duration.ofSeconds(30))).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> refusals("unnecessary") == unnecessary + 1);
        assertThat(refusals("necessary")).isEqualTo(necessary);
        assertThat(meters.counter(EnforcementAccuracy.PROVIDER_TOKENS, "provider", "default")
                        .count())
                .isEqualTo(providerTokens + 200);
        var ratio = meters.find(EnforcementAccuracy.SETTLED_OF_RESERVED)
                .tag("tier", "small")
                .tag("provider", "default")
                .summary();
        assertThat(ratio.count()).isEqualTo(ratiosBefore + 2);
        assertThat(ratio.max())
                .as("100 used of about 1,300 reserved, in percent")
                .isBetween(5.0, 10.0);
    }

    @Test
    void aRefusalWithNothingInFlightIsNecessaryAtOnce() {
        TestTenants.Created tenant = TestTenants.create(tenants, "steady", "small");
        double necessary = refusals("necessary");
        assertThat(chat(tenant, 1290).block(Duration.ofSeconds(30))).isEqualTo(200);
        Tier small = config.current().tier("small").orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limiter.peek(tenant.id(), small)
                                .block(Duration.ofSeconds(5))
                                .get(0)
                                .usedTokens()
                        == 100);
        // 100 settled: a request of about 3,000 does not fit, and nothing is in flight to give any back.
        assertThat(chat(tenant, 2990).block(Duration.ofSeconds(30))).isEqualTo(429);
        assertThat(refusals("necessary")).isEqualTo(necessary + 1);
    }
}
