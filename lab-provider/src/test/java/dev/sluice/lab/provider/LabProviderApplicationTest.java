package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.SluiceApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The whole gateway boots with the lab provider and serves its counters on the gateway's port,
 * to the admin only: anyone else could reset the provider's windows under a running test.
 */
@SpringBootTest(
        classes = SluiceApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sluice.lab.port=0",
            "sluice.lab.latency=20ms",
            "sluice.admin.user=ops",
            "sluice.admin.password=lab-controls"
        })
@AutoConfigureWebTestClient
class LabProviderApplicationTest {

    @Autowired
    private WebTestClient gateway;

    @Autowired
    private LabProviderServer lab;

    @Test
    void theLabRunsBesideTheGatewayAndItsStatsAreOnTheGatewaysPort() {
        try (LabHttp provider = LabHttp.forServer(lab)) {
            assertThat(provider.post(
                                    "/v1/chat/completions",
                                    "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                            .status())
                    .isEqualTo(200);
        }
        WebTestClient admin = gateway.mutate()
                .defaultHeaders(h -> h.setBasicAuth("ops", "lab-controls"))
                .build();
        admin.get()
                .uri("/lab/provider/stats")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.completed")
                .isEqualTo(1)
                .jsonPath("$.limits.latencyMs")
                .isEqualTo(20);
        admin.post()
                .uri("/lab/provider/reset")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.completed")
                .isEqualTo(0);
    }

    @Test
    void theLabControlsRefuseAnonymousCallersAndTenantKeys() {
        gateway.post()
                .uri("/lab/provider/reset")
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unauthorized");
        gateway.get().uri("/lab/provider/stats").exchange().expectStatus().isUnauthorized();
        gateway.post()
                .uri("/lab/provider/reset")
                .header("Authorization", "Bearer sk-sluice-demo-enterprise")
                .exchange()
                .expectStatus()
                .isUnauthorized();
        gateway.get()
                .uri("/lab/provider/stats")
                .headers(h -> h.setBasicAuth("ops", "wrong"))
                .exchange()
                .expectStatus()
                .isUnauthorized();
    }
}
