package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import dev.sluice.gateway.tiers.TierDocument;
import dev.sluice.gateway.tiers.TierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Issue 28's judged promise, through the whole gateway over real HTTP on an injected clock: an
 * open-loop crowd (five tenants, each at its own steady rate, no retries) runs against a roomy live
 * tier while a stricter draft is in shadow; the draft's refusals are read from the ledger. The
 * draft is then promoted (written as the live document, as the admin API does) and the same crowd
 * runs again on fresh tenants: the live refusals come within 10 % of what the shadow predicted,
 * tenant by tenant in the same order.
 */
@GatewayTest
@Import(ShadowPredictsThePromotionTest.Setup.class)
class ShadowPredictsThePromotionTest {
    static final String LIVE = """
            tiers:
              metered: {tokens-per-minute: 100000, requests-per-minute: 6000, priority: 2}
            ladder:
              max-delay-ms: 0 # no hold: the crowd's clock is the test's, and a held request would ask again on it
            providers:
              - name: default
                models:
                  "*": {requests-per-minute: 100000, tokens-per-minute: 10000000, max-in-flight: 200}
            """;
    static final String DRAFT = LIVE.replace("100000, requests", "1500, requests");
    static final SluiceConfig DRAFT_CONFIG = TiersYamlParser.parse("draft", DRAFT);
    static final FakeClock CLOCK = new FakeClock(1_900_000_000_000L);
    static final AtomicReference<SluiceConfig> IN_SHADOW = new AtomicReference<>();

    @TestConfiguration
    static class Setup {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
        }

        @Bean
        @Primary // over the drafts' own (DraftShadow): this test puts its draft in shadow by hand
        ShadowTiers testShadowTiers() {
            return new SetByTheTest(IN_SHADOW, 7);
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
        String tiers = TestTiers.written("shadow-promotion/tiers.yaml", LIVE);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    ShadowLedger ledger;

    @Autowired
    ShadowRecorder recorder;

    @Autowired
    TierDocumentStore documents;

    @Autowired
    TierReloader reloader;

    int chat(TestTenants.Created who) {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":200,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(30));
    }

    /**
     * Two simulated minutes in steps of 4 s: tenant i sends i + 1 requests a step (15 (i + 1) a
     * minute, 100 tokens each as settled), so under 1,500 tokens a minute the first is at its limit
     * and the others further over it. Returns the 429s per tenant.
     */
    List<Integer> crowd(String phase) {
        List<TestTenants.Created> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) five.add(TestTenants.create(tenants, phase + "-" + i, "metered"));
        int[] refused = new int[5];
        for (int step = 0; step < 30; step++) {
            for (int i = 0; i < 5; i++) for (int k = 0; k <= i; k++) if (chat(five.get(i)) == 429) refused[i]++;
            CLOCK.advance(4_000);
        }
        List<Integer> out = new ArrayList<>();
        for (int n : refused) out.add(n);
        return out;
    }

    @Test
    void promotingTheDraftRefusesWithinTenPercentOfWhatTheShadowPredicted() {
        IN_SHADOW.set(DRAFT_CONFIG);
        long from =
                CLOCK.millis() / 60_000 * 60_000; // the ledger is kept by minute: from the minute the crowd starts in
        List<Integer> liveBefore = crowd("shadowed");
        assertThat(liveBefore)
                .as("the live tier is roomy: the shadow changes no answer")
                .containsOnly(0);
        recorder.send().block(Duration.ofSeconds(5));
        Map<String, Long> predicted = new TreeMap<>();
        ledger.since(from)
                .filter(m -> m.tenantId().startsWith("shadowed-"))
                .toIterable()
                .forEach(m -> predicted.merge(
                        m.tenantId().substring(0, "shadowed-".length() + 1),
                        m.draft().getOrDefault("rejected", 0L),
                        Long::sum));
        IN_SHADOW.set(null);

        TierDocument live = documents.current().block(Duration.ofSeconds(5));
        assertThat(documents
                        .replace(live.version(), DRAFT, "test")
                        .block(Duration.ofSeconds(5))
                        .written())
                .isTrue();
        reloader.checkOnce().block(Duration.ofSeconds(5));
        List<Integer> actual = crowd("promoted");

        long predictedTotal =
                predicted.values().stream().mapToLong(Long::longValue).sum();
        long actualTotal = actual.stream().mapToLong(Integer::longValue).sum();
        System.out.printf(
                "[what-if] predicted %s = %d, after promotion %s = %d%n",
                predicted, predictedTotal, actual, actualTotal);
        assertThat(predictedTotal)
                .as("the stricter draft refuses some of this crowd")
                .isGreaterThan(50);
        assertThat((double) Math.abs(actualTotal - predictedTotal))
                .as("refusals after promotion against the shadow's prediction")
                .isLessThanOrEqualTo(0.10 * predictedTotal);
        assertThat(actual).as("tenant by tenant").hasSize(5);
        for (int i = 1; i < 5; i++)
            assertThat(actual.get(i))
                    .as("the more a tenant sends, the more it is refused")
                    .isGreaterThanOrEqualTo(actual.get(i - 1));
        assertThat(predicted.keySet()).hasSize(5);
    }
}
