package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.lab.scenario.LabRuns;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A replica in front of a real provider (SLUICE_PROVIDER_URL set) has no lab: no scenario runner
 * bean, and the lab run endpoints answer the admin API's 404 {@code unknown_endpoint}, which the
 * console reads as "the lab is not part of this gateway". Before, every production replica would
 * boot a second gateway in-process on an admin's POST.
 */
@GatewayTest(
        properties = {
            "sluice.provider.url=http://127.0.0.1:9/v1", // never called here
            "sluice.admin.user=ops",
            "sluice.admin.password=no-lab-here",
            "sluice.abuse.sampler.enabled=false"
        })
class LabRunsOnlyWithTheLabTest {
    @Autowired
    WebTestClient web;

    @Autowired
    ApplicationContext context;

    @Test
    void aGatewayInFrontOfARealProviderHasNoLabRuns() {
        assertThat(context.getBeanNamesForType(LabRuns.class)).isEmpty();
        web.post()
                .uri("/admin/api/lab/runs")
                .headers(h -> h.setBasicAuth("ops", "no-lab-here"))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{}")
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unknown_endpoint");
        web.get()
                .uri("/admin/api/lab/runs/latest")
                .headers(h -> h.setBasicAuth("ops", "no-lab-here"))
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unknown_endpoint");
        // The rest of the admin API is there.
        web.get()
                .uri("/admin/api/tenants")
                .headers(h -> h.setBasicAuth("ops", "no-lab-here"))
                .exchange()
                .expectStatus()
                .isOk();
    }
}
