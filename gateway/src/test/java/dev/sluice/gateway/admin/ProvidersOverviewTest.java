package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
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
 * The overview's providers with two of them configured, each a real HTTP upstream: both are
 * listed in the document's order, each with its host (not its path or key), its state, its
 * budgets and its share of the answers, read over the admin API.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=two providers test",
            "sluice.abuse.sampler.enabled=false"
        })
class ProvidersOverviewTest {
    @RegisterExtension
    static final FakeUpstreamExtension PRIMARY = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    @RegisterExtension
    static final FakeUpstreamExtension SECONDARY = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    /** tiers.yaml as shipped, its one provider replaced by two: gpt-4o-mini on primary, anything on secondary. */
    @DynamicPropertySource
    static void twoProviders(DynamicPropertyRegistry registry) throws IOException {
        String providers = """

                providers:
                  - name: primary
                    base-url: %s
                    models:
                      gpt-4o-mini: {requests-per-minute: 600, tokens-per-minute: 100000, max-in-flight: 10, price-per-million-tokens: 1.0}
                  - name: secondary
                    base-url: %s
                    headroom: 0.5
                    models:
                      "*": {requests-per-minute: 1200, tokens-per-minute: 200000, max-in-flight: 20, price-per-million-tokens: 2.0}
                """.formatted(PRIMARY.baseUrl(), SECONDARY.baseUrl());
        String file = TestTiers.shippedWithProviders("two-providers-overview-tiers.yaml", providers);
        registry.add("sluice.tiers.path", () -> file);
    }

    @Autowired
    WebTestClient web;

    @Autowired
    TenantStore tenants;

    @Autowired
    OverviewHandler overview;

    WebTestClient admin() {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth("ops", "two providers test"))
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    void chat(String key, String model) {
        web.post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"" + model
                        + "\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchange()
                .expectStatus()
                .isOk();
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachProviderIsListedInOrderWithItsHostStateBudgetsAndShareOfTheAnswers() {
        String key = TestTenants.create(tenants, "two-providers", "enterprise").key();
        overview.record(); // the last minute's baseline: what follows is in its change
        // Three answers from primary (it lists gpt-4o-mini), one from secondary (the only one with "*").
        for (int i = 0; i < 3; i++) chat(key, "gpt-4o-mini");
        chat(key, "gpt-4o");
        assertThat(PRIMARY.requests()).hasSize(3);
        assertThat(SECONDARY.requests()).hasSize(1);

        Map<String, Object> o = admin().get()
                .uri("/admin/api/overview")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        List<Map<String, Object>> providers = (List<Map<String, Object>>) o.get("providers");
        assertThat(providers).extracting(p -> p.get("name")).containsExactly("primary", "secondary");

        Map<String, Object> primary = providers.get(0);
        Map<String, Object> secondary = providers.get(1);
        String primaryPort = PRIMARY.baseUrl().split("[:/]+")[2];
        assertThat(primary.get("host")).as("host and port, not the API path").isEqualTo("127.0.0.1:" + primaryPort);
        assertThat(secondary.get("host")).isNotEqualTo(primary.get("host"));
        for (Map<String, Object> p : providers) {
            assertThat(p).containsEntry("state", "healthy").containsEntry("circuit", "closed");
            assertThat(((Number) p.get("pausedForMs")).longValue()).isZero();
        }
        assertThat(((Number) primary.get("shareLastMinute")).doubleValue()).isEqualTo(0.75);
        assertThat(((Number) secondary.get("shareLastMinute")).doubleValue()).isEqualTo(0.25);
        Map<String, Map<String, Number>> answers = (Map<String, Map<String, Number>>) primary.get("answers");
        assertThat(answers.get("lastMinute").get("200").longValue()).isEqualTo(3);
        assertThat(answers.get("sinceStart").get("200").longValue()).isGreaterThanOrEqualTo(3);

        List<Map<String, Object>> primaryBudgets = (List<Map<String, Object>>) primary.get("budgets");
        assertThat(primaryBudgets).extracting(b -> b.get("budget")).containsExactly("primary:gpt-4o-mini");
        Map<String, Object> pb = primaryBudgets.get(0);
        assertThat(pb).containsEntry("provider", "primary").containsEntry("model", "gpt-4o-mini");
        assertThat(((Number) pb.get("maxInFlight")).intValue()).isEqualTo(10);
        assertThat(((Number) pb.get("pausedForMs")).longValue()).isZero();
        assertThat(((Number) pb.get("queueDepth")).longValue()).isZero();
        Map<String, Number> use = (Map<String, Number>) pb.get("utilisation");
        assertThat(use.get("requests").doubleValue()).as("3 of 600 requests").isEqualTo(0.005);
        assertThat(use.get("tokens").doubleValue()).isGreaterThan(0);

        List<Map<String, Object>> secondaryBudgets = (List<Map<String, Object>>) secondary.get("budgets");
        assertThat(secondaryBudgets).extracting(b -> b.get("budget")).containsExactly("secondary:*");
        Map<String, Object> sb = secondaryBudgets.get(0);
        assertThat(sb).containsEntry("provider", "secondary").containsEntry("model", "*");
        assertThat(((Number) sb.get("maxInFlight")).intValue())
                .as("20 × headroom 0.5")
                .isEqualTo(10);
        assertThat(((Map<String, Number>) sb.get("utilisation")).get("requests").doubleValue())
                .as("1 of 600")
                .isCloseTo(1 / 600.0, offset(1e-4));

        assertThat((List<Object>) o.get("budgets"))
                .as("the flat list as before, both providers' budgets in it")
                .hasSize(2);
        assertThat((String) ((Map<String, Object>) o.get("spend")).get("priceSource"))
                .contains("primary:gpt-4o-mini $1.00")
                .contains("secondary:* $2.00")
                .doesNotContain("built-in");
    }

    /** What OverviewAnswerTest pins on the router alone, here as the application's own JSON mapper writes it. */
    @Test
    void theAnswersFieldsComeInTheirOrder() {
        JsonNode o = JsonMapper.builder()
                .build()
                .readTree(admin().get()
                        .uri("/admin/api/overview")
                        .exchange()
                        .expectBody(String.class)
                        .returnResult()
                        .getResponseBody());
        assertThat(o.propertyNames())
                .containsExactly(
                        "at",
                        "startedAt",
                        "windowSeconds",
                        "coveredSeconds",
                        "decisions",
                        "queueWaitP95Ms",
                        "waitEstimate",
                        "budgets",
                        "spend",
                        "upstream",
                        "openFlags",
                        "providers");
        assertThat(o.path("spend").propertyNames())
                .containsExactly(
                        "usdLastMinute", "usdSinceStart", "tokensLastMinute", "tokensSinceStart", "priceSource");
        JsonNode provider = o.path("providers").get(0);
        assertThat(provider.propertyNames())
                .containsExactly(
                        "name",
                        "host",
                        "state",
                        "circuit",
                        "pausedForMs",
                        "shareLastMinute",
                        "answers",
                        "retries",
                        "budgets");
        assertThat(provider.path("budgets").get(0).propertyNames())
                .containsExactly(
                        "budget",
                        "provider",
                        "model",
                        "utilisation",
                        "inFlight",
                        "concurrencyLimit",
                        "maxInFlight",
                        "queueDepth",
                        "pausedForMs",
                        "queueWaitP95Ms",
                        "waitEstimate",
                        "pricePerMillionTokens",
                        "tokenRatio");
        assertThat(provider.path("budgets").get(0).path("waitEstimate").propertyNames())
                .containsExactly("p50", "p95", "samples");
    }

    @Test
    void theBuiltInSimulatorIsNamedAndABaseUrlShowsOnlyItsHost() {
        assertThat(ProviderOverview.host("")).isEqualTo("built-in simulator");
        assertThat(ProviderOverview.host("https://api.openai.com/v1")).isEqualTo("api.openai.com");
        assertThat(ProviderOverview.host(
                        "https://user:secret@acme.openai.azure.com:8443/openai/deployments/x?api-key=k"))
                .isEqualTo("acme.openai.azure.com:8443");
    }

    @Test
    void aProvidersStateIsWhatAnOperatorActsOn() {
        assertThat(ProviderOverview.state("closed", 0)).isEqualTo("healthy");
        assertThat(ProviderOverview.state(null, 0)).isEqualTo("healthy");
        assertThat(ProviderOverview.state("closed", 2_000)).isEqualTo("paused");
        assertThat(ProviderOverview.state("open", 2_000)).isEqualTo("failing");
        assertThat(ProviderOverview.state("probing", 0)).isEqualTo("probing");
        assertThat(ProviderOverview.served(
                        Map.of("200", 4L, "400", 1L, "429", 3L, "503", 2L, "timeout", 1L, "unreachable", 1L)))
                .as("its 2xx")
                .isEqualTo(4);
    }
}
