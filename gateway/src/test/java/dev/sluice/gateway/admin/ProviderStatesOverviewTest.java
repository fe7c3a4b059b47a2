package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.net.ServerSocket;
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
import reactor.core.publisher.Mono;

/**
 * What an operator sees of a provider that cannot take calls, over the admin API with real
 * upstreams: one that answers 429 with a retry-after is paused for that long, one that refuses
 * connections is failing (its circuit open), and the provider behind it on the route served
 * its calls and has all the traffic.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=provider states test",
            "sluice.abuse.sampler.enabled=false",
            // Stepped around for the whole test: no probe turns "failing" into "probing" while it reads the overview.
            "sluice.dispatch.failover.cooldown=10m",
            "sluice.dispatch.failover.max-cooldown=10m"
        })
class ProviderStatesOverviewTest {
    @RegisterExtension
    static final FakeUpstreamExtension BUSY = FakeUpstreamExtension.start(
            (req, res) -> res.status(429)
                    .header("retry-after", "30")
                    .header("content-type", "application/json")
                    .sendString(
                            Mono.just(
                                    "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}")));

    @RegisterExtension
    static final FakeUpstreamExtension BACKUP = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry registry) throws IOException {
        int down;
        try (ServerSocket s = new ServerSocket(0)) {
            down = s.getLocalPort(); // closed at once: nothing listens there
        }
        String limits = "{requests-per-minute: 600, tokens-per-minute: 100000, max-in-flight: 10}";
        String providers =
                """

                providers:
                  - name: busy
                    base-url: %s
                    models:
                      gpt-4o-mini: %s
                  - name: down
                    base-url: http://127.0.0.1:%d/v1
                    models:
                      gpt-4o: %s
                  - name: backup
                    base-url: %s
                    models:
                      gpt-4o-mini: %s
                      gpt-4o: %s
                      "*": %s
                routes:
                  gpt-4o-mini: [busy]
                  gpt-4o: [down, backup]
                """.formatted(BUSY.baseUrl(), limits, down, limits, BACKUP.baseUrl(), limits, limits, limits);
        String file = TestTiers.shippedWithProviders("provider-states-overview-tiers.yaml", providers);
        registry.add("sluice.tiers.path", () -> file);
    }

    @Autowired
    WebTestClient web;

    @Autowired
    TenantStore tenants;

    @Autowired
    OverviewHandler overview;

    WebTestClient.ResponseSpec send(String key, String model) {
        return web.mutate()
                .responseTimeout(Duration.ofSeconds(30))
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("X-Sluice-Max-Wait", "1000")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"" + model
                        + "\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchange();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aProviderThatAnswered429IsPausedOneThatRefusesConnectionsIsFailingAndTheirBackupHasTheTraffic() {
        String key =
                TestTenants.create(tenants, "provider-states", "enterprise").key();
        overview.record();
        // busy says 429, retry after 30 s: the caller, willing to wait 1 s, is answered busy.
        send(key, "gpt-4o-mini")
                .expectStatus()
                .isEqualTo(503)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("gateway_busy");
        assertThat(BUSY.requests()).hasSize(1);
        for (int i = 0; i < 3; i++) {
            send(key, "gpt-4o").expectStatus().isOk().expectHeader().valueEquals("X-Sluice-Provider", "backup");
        }

        Map<String, Object> o = web.mutate()
                .defaultHeaders(h -> h.setBasicAuth("ops", "provider states test"))
                .responseTimeout(Duration.ofSeconds(20))
                .build()
                .get()
                .uri("/admin/api/overview")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        List<Map<String, Object>> providers = (List<Map<String, Object>>) o.get("providers");
        assertThat(providers).extracting(p -> p.get("name")).containsExactly("busy", "down", "backup");
        Map<String, Object> busy = providers.get(0);
        Map<String, Object> down = providers.get(1);
        Map<String, Object> backup = providers.get(2);

        assertThat(busy)
                .as("its own 429 pauses it: not failing")
                .containsEntry("state", "paused")
                .containsEntry("circuit", "closed");
        assertThat(((Number) busy.get("pausedForMs")).longValue())
                .as("what is left of retry-after: 30")
                .isBetween(20_000L, 30_000L);
        Map<String, Object> busyBudget = ((List<Map<String, Object>>) busy.get("budgets")).get(0);
        assertThat(((Number) busyBudget.get("pausedForMs")).longValue())
                .isEqualTo(((Number) busy.get("pausedForMs")).longValue());
        assertThat(((Map<String, Map<String, Number>>) busy.get("answers"))
                        .get("lastMinute")
                        .get("429")
                        .longValue())
                .isEqualTo(1);
        assertThat(busy.get("shareLastMinute")).isEqualTo(0.0);

        assertThat(down)
                .as("three failed calls in a row open its circuit")
                .containsEntry("state", "failing")
                .containsEntry("circuit", "open");
        assertThat(((Map<String, Map<String, Number>>) down.get("answers")).get("lastMinute"))
                .as("no answer came")
                .allSatisfy((status, n) -> assertThat(n.longValue()).as(status).isZero());
        assertThat(((Map<String, Map<String, Number>>) down.get("retries"))
                        .get("lastMinute")
                        .get("failover")
                        .longValue())
                .as("each call went on to backup")
                .isEqualTo(3);
        assertThat(down.get("shareLastMinute")).isEqualTo(0.0);

        assertThat(backup).containsEntry("state", "healthy").containsEntry("circuit", "closed");
        assertThat(backup.get("shareLastMinute"))
                .as("it served all three answers")
                .isEqualTo(1.0);
        assertThat(((List<Object>) backup.get("budgets")))
                .as("gpt-4o-mini, gpt-4o and the rest (the tiers' downgrade targets)")
                .hasSize(3);
    }
}
