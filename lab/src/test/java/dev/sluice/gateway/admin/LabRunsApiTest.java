package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.testsupport.GatewayTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * {@code /admin/api/lab/runs} on a running gateway: a small case-4 run, which starts a second
 * gateway inside this one's JVM, in the background; one run at a time; the report as the
 * contract says; and this gateway still serving its tenants afterwards.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=correct horse battery",
            "sluice.abuse.sampler.enabled=false",
            LabRunsApiTest.SMALL_RUNS
        })
class LabRunsApiTest {
    /** Runs of 20-page books at ten times the wall's speed, with no warm-up: the API is under test, not the shape. */
    static final String SMALL_RUNS =
            "sluice.lab.scenario.options=--time-factor=10 --upload-for=2 --pages=20 --warm-up=0";

    @Autowired
    WebTestClient web;

    WebTestClient admin() {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth("ops", "correct horse battery"))
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    Map<String, Object> get(String path, int status) {
        return map(admin().get()
                .uri(path)
                .exchange()
                .expectStatus()
                .isEqualTo(status)
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody());
    }

    @Test
    void aRunGoesInTheBackgroundOneAtATimeAndLeavesItsHostServing() {
        assertThat(map(get("/admin/api/lab/runs/latest", 404).get("error")).get("code"))
                .isEqualTo("not_found");
        // The lab page tells "no such run" (the lab API is here) from "no such endpoint" by the code.
        assertThat(map(get("/admin/api/lab/runs/no-such-run", 404).get("error")).get("code"))
                .isEqualTo("not_found");
        assertThat(map(get("/admin/api/lab/no-such-thing", 404).get("error")).get("code"))
                .isEqualTo("unknown_endpoint");
        web.post().uri("/admin/api/lab/runs").exchange().expectStatus().isUnauthorized();
        Map<String, Object> unknown = map(admin().post()
                .uri("/admin/api/lab/runs")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("cases", List.of("case9")))
                .exchange()
                .expectStatus()
                .isEqualTo(422)
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody());
        assertThat(map(unknown.get("error")).get("message").toString()).contains("unknown case 'case9'");

        Map<String, Object> started = map(admin().post()
                .uri("/admin/api/lab/runs")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("cases", List.of("case4"), "ramp", false))
                .exchange()
                .expectStatus()
                .isAccepted()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody());
        String id = (String) started.get("id");
        assertThat(started).containsEntry("status", "running");

        // While it runs (its gateway takes seconds to start): busy for a second run, readable as latest.
        Map<String, Object> busy = map(admin().post()
                .uri("/admin/api/lab/runs")
                .exchange()
                .expectStatus()
                .isEqualTo(409)
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody());
        assertThat(map(busy.get("error")).get("code")).isEqualTo("lab_busy");
        Map<String, Object> running = get("/admin/api/lab/runs/latest", 200);
        assertThat(running)
                .containsEntry("id", id)
                .containsKeys("startedAt", "finishedAt", "progress", "error", "report");
        assertThat(map(running.get("progress"))).containsEntry("total", 1);
        get("/admin/api/lab/runs/no-such-run", 404);

        Map<String, Object> done = await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> get("/admin/api/lab/runs/" + id, 200), r -> !"running".equals(r.get("status")));
        assertThat(done.get("error")).isNull();
        assertThat(done).containsEntry("status", "done");
        assertThat(done.get("finishedAt")).isNotNull();
        assertThat(map(done.get("progress"))).containsEntry("done", 1).containsEntry("step", null);
        Map<String, Object> report = map(done.get("report"));
        assertThat(map(report.get("scale"))).containsEntry("timeFactor", 10.0);
        List<Object> cases = (List<Object>) report.get("cases");
        Map<String, Object> case4 = map(cases.get(0));
        assertThat(case4)
                .containsEntry("id", "case4")
                .containsEntry("pagesDied", 0)
                .containsEntry("firstFailure", null);
        assertThat((Integer) case4.get("booksClean"))
                .isEqualTo(case4.get("booksTotal"))
                .isPositive();
        assertThat((List<Object>) report.get("ramp")).isEmpty();

        // The run's gateway came and went inside this JVM: this one still serves tenants and metrics.
        String tenant = "lab-host-check-" + System.nanoTime();
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", tenant, "tier", "pro"))
                .exchange()
                .expectStatus()
                .isCreated();
        String key = (String) map(admin().post()
                        .uri("/admin/api/tenants/" + tenant + "/keys")
                        .exchange()
                        .expectStatus()
                        .isCreated()
                        .expectBody(Map.class)
                        .returnResult()
                        .getResponseBody())
                .get("key");
        web.post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchange()
                .expectStatus()
                .isOk();
        web.get()
                .uri("/actuator/prometheus")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("sluice_decisions_total"));
    }
}
