package dev.sluice.gateway.drafts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.shadow.ShadowRecorder;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 28's promise end to end, over real HTTP with the real shadow: a stricter draft saved and
 * put in shadow through the admin API, live traffic decided against it, the what-if counting the
 * refusals it would add (every live answer standing), then the draft promoted and the same traffic
 * from another tenant refused as the what-if predicted (within the 10 %).
 */
@GatewayTest(properties = {"sluice.admin.user=whatif-ops", "sluice.admin.password=whatif password 28"})
class DraftWhatIfGatewayTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String LIVE = """
            tiers:
              roomy: {tokens-per-minute: 100000, requests-per-minute: 600, priority: 2}
            providers:
              - name: default
                models:
                  "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 50}
            """;
    static final String STRICTER = LIVE.replace("100000", "1000");
    static final String ANSWER =
            "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
                    + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":80,\"total_tokens\":100}}";

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(ANSWER);

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) throws IOException {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        String tiers = TestTiers.written("drafts/whatif-tiers.yaml", LIVE);
        registry.add("sluice.tiers.path", () -> tiers);
    }

    @Autowired
    WebTestClient web;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    @Autowired
    ShadowRecorder recorder;

    WebTestClient admin() {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth("whatif-ops", "whatif password 28"))
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    JsonNode adminCall(WebTestClient.RequestHeadersSpec<?> spec) {
        return JSON.readTree(spec.exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody());
    }

    int chat(TestTenants.Created who) {
        return web.post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + who.key())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":290,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchange()
                .returnResult(String.class)
                .getStatus()
                .value();
    }

    long used(String tenantId) {
        Tier roomy = config.current().tier("roomy").orElseThrow();
        return limiter.peek(tenantId, roomy).block(Duration.ofSeconds(5)).get(0).usedTokens();
    }

    /** Twelve calls one after another, each settled before the next; the statuses counted. */
    Map<Integer, Integer> crowd(TestTenants.Created who) {
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        long served = 0;
        for (int i = 0; i < 12; i++) {
            int status = chat(who);
            statuses.merge(status, 1, Integer::sum);
            if (status == 200) {
                long expected = 100L * ++served;
                await().atMost(Duration.ofSeconds(10)).until(() -> used(who.id()) == expected);
            }
        }
        return statuses;
    }

    @Test
    void theWhatIfCountsWhatTheShadowedDraftRefusesAndPromotingItRefusesAsPredicted() {
        admin().put()
                .uri("/admin/api/tiers/draft")
                .contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(STRICTER)
                .exchange()
                .expectStatus()
                .isOk();
        adminCall(admin().post()
                .uri("/admin/api/tiers/draft/shadow")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"on\":true}"));

        TestTenants.Created shadowed = TestTenants.create(tenants, "whatif-shadowed", "roomy");
        assertThat(crowd(shadowed)).as("live answers, with the draft in shadow").isEqualTo(Map.of(200, 12));

        recorder.send().block(Duration.ofSeconds(5));
        JsonNode whatIf = adminCall(admin().get().uri("/admin/api/tiers/draft/whatif?minutes=60"));
        assertThat(whatIf.path("source").asString()).isEqualTo("shadow");
        assertThat(whatIf.path("exact").asBoolean()).isTrue();
        assertThat(whatIf.path("live").path("rejected").asLong()).isZero();
        long predicted = whatIf.path("draft").path("rejected").asLong();
        assertThat(predicted)
                .as("the draft refuses what passes 1,000 tokens a minute")
                .isEqualTo(4);
        assertThat(whatIf.path("tenants").get(0).path("tenant").asString()).isEqualTo(shadowed.id());

        String liveEtag = admin().get()
                .uri("/admin/api/tiers")
                .exchange()
                .returnResult(String.class)
                .getResponseHeaders()
                .getETag();
        adminCall(admin().post().uri("/admin/api/tiers/draft/promote").header(HttpHeaders.IF_MATCH, liveEtag));
        assertThat(config.current().tier("roomy").orElseThrow().tokensPerMinute())
                .isEqualTo(1000);

        TestTenants.Created promoted = TestTenants.create(tenants, "whatif-promoted", "roomy");
        int refused = crowd(promoted).getOrDefault(429, 0);
        assertThat(Math.abs(refused - predicted))
                .as("refused after promotion (%d) against the what-if's %d", refused, predicted)
                .isLessThanOrEqualTo((long) Math.ceil(predicted * 0.1));
    }
}
