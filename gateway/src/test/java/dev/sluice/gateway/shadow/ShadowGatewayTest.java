package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A stricter draft in shadow through the whole gateway over real HTTP: every live answer is what
 * it is without the draft (200, the live window charged exactly the usage), while the ledger and
 * the meters show the draft refusing past its smaller minute; the draft's windows are its own.
 */
@GatewayTest
@Import(ShadowGatewayTest.Draft.class)
class ShadowGatewayTest {
    static final String LIVE = """
            tiers:
              roomy: {tokens-per-minute: 100000, requests-per-minute: 600, priority: 2}
            providers:
              - name: default
                models:
                  "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 50}
            """;
    /** The same tier at 1,000 tokens a minute. */
    static final SluiceConfig STRICTER = TiersYamlParser.parse("draft", LIVE.replace("100000", "1000"));

    static final AtomicReference<SluiceConfig> IN_SHADOW = new AtomicReference<>();

    @TestConfiguration
    static class Draft {
        /** @Primary over the draft store's DraftShadow: this test sets the draft in shadow itself. */
        @Bean
        @org.springframework.context.annotation.Primary
        ShadowTiers testShadowTiers() {
            return new SetByTheTest(IN_SHADOW, 42);
        }
    }

    static final String ANSWER =
            "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":80,\"total_tokens\":100}}";

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(ANSWER);

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        String tiers = TestTiers.written("shadow/tiers.yaml", LIVE);
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

    @Autowired
    ShadowLedger ledger;

    @Autowired
    ShadowRecorder recorder;

    @Autowired
    MeterRegistry meters;

    @AfterEach
    void shadowOff() {
        IN_SHADOW.set(null);
    }

    int chat(TestTenants.Created who) {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":290,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(30));
    }

    long liveUsed(String tenantId) {
        Tier roomy = config.current().tier("roomy").orElseThrow();
        return limiter.peek(tenantId, roomy).block(Duration.ofSeconds(5)).get(0).usedTokens();
    }

    Map<String, Long> draftOf(String tenantId) {
        recorder.send().block(Duration.ofSeconds(5));
        return ledger.since(0)
                .filter(m -> m.tenantId().equals(tenantId))
                .map(ShadowMinute::draft)
                .reduce(Map.<String, Long>of(), (a, b) -> {
                    var sum = new java.util.HashMap<>(a);
                    b.forEach((k, v) -> sum.merge(k, v, Long::sum));
                    return Map.copyOf(sum);
                })
                .block(Duration.ofSeconds(5));
    }

    @Test
    void aStricterDraftInShadowRefusesInTheLedgerWhileEveryLiveAnswerStands() {
        IN_SHADOW.set(STRICTER);
        TestTenants.Created tenant = TestTenants.create(tenants, "shadowed", "roomy");
        for (int i = 0; i < 12; i++) {
            assertThat(chat(tenant)).as("live answer %d", i).isEqualTo(200);
            int served = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> liveUsed(tenant.id()) == 100L * served);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<String, Long> draft = draftOf(tenant.id());
            assertThat(draft.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(12);
            // 100 settled per call, ~300 reserved: the ninth call on finds 800 + 300 over 1,000.
            assertThat(draft.getOrDefault("rejected", 0L))
                    .as("the draft refuses the last four")
                    .isEqualTo(4L);
        });
        Tier draftTier = STRICTER.tier("roomy").orElseThrow();
        long shadowUsed = limiter.peek(ShadowEvaluator.owner(42, tenant.id()), draftTier)
                .block(Duration.ofSeconds(5))
                .get(0)
                .usedTokens();
        assertThat(shadowUsed)
                .as("the draft's windows hold only what it admitted, settled at the live usage")
                .isEqualTo(800L)
                .isLessThan(liveUsed(tenant.id()));
        assertThat(meters.counter(ShadowRecorder.DECISIONS, "tier", "roomy", "side", "draft", "stage", "rejected")
                        .count())
                .isPositive();
    }

    @Test
    void withNoDraftInShadowNothingIsRecorded() {
        TestTenants.Created tenant = TestTenants.create(tenants, "unshadowed", "roomy");
        for (int i = 0; i < 3; i++) assertThat(chat(tenant)).isEqualTo(200);
        assertThat(draftOf(tenant.id())).isEmpty();
        assertThat(List.of(ShadowEvaluator.owner(42, tenant.id())))
                .allSatisfy(owner -> assertThat(limiter.peek(
                                        owner, config.current().tier("roomy").orElseThrow())
                                .block(Duration.ofSeconds(5))
                                .get(0)
                                .usedTokens())
                        .isZero());
    }
}
