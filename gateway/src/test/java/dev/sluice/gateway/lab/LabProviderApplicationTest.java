package dev.sluice.gateway.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.SluiceApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The whole gateway boots with the lab provider and serves its counters on the gateway's port. */
@SpringBootTest(classes = SluiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sluice.lab.port=0", "sluice.lab.latency=20ms"})
@AutoConfigureWebTestClient
class LabProviderApplicationTest {

    @Autowired
    private WebTestClient gateway;

    @Autowired
    private LabProviderServer lab;

    @Test
    void theLabRunsBesideTheGatewayAndItsStatsAreOnTheGatewaysPort() {
        try (LabHttp provider = LabHttp.forServer(lab)) {
            assertThat(provider.post("/v1/chat/completions",
                    "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").status())
                    .isEqualTo(200);
        }
        gateway.get().uri("/lab/provider/stats").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.completed").isEqualTo(1)
                .jsonPath("$.limits.latencyMs").isEqualTo(20);
        gateway.post().uri("/lab/provider/reset").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.completed").isEqualTo(0);
    }
}
