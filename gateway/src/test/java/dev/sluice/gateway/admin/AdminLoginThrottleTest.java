package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/** Guessing the admin password on a running gateway: forty wrong passwords in a row, then the right one. */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=throttle-me-not",
            "sluice.abuse.sampler.enabled=false",
            FakeUpstream.NO_UPSTREAM_CALLS
        })
class AdminLoginThrottleTest {
    @Autowired
    WebTestClient web;

    @Test
    void fortyWrongPasswordsAreThrottledAfterTheFifthAndTheRightOneWaitsToo() {
        List<Integer> statuses = new ArrayList<>();
        EntityExchangeResult<String> last = null;
        for (int i = 0; i < 40; i++) {
            String guess = "guess-" + i;
            last = web.get()
                    .uri("/admin/api/tenants")
                    .headers(h -> h.setBasicAuth("ops", guess))
                    .exchange()
                    .expectBody(String.class)
                    .returnResult();
            statuses.add(last.getStatus().value());
        }
        assertThat(statuses.subList(0, 5)).containsOnly(401);
        assertThat(statuses.subList(5, 40)).containsOnly(429);
        long retryAfter = Long.parseLong(last.getResponseHeaders().getFirst("Retry-After"));
        assertThat(retryAfter).isBetween(1L, 15 * 60L);
        assertThat(last.getResponseBody())
                .contains("\"code\":\"too_many_failed_logins\"")
                .contains("\"status\":429");

        // The right password is refused as well while throttled: otherwise a guess would still tell.
        web.get()
                .uri("/admin/api/tenants")
                .headers(h -> h.setBasicAuth("ops", "throttle-me-not"))
                .exchange()
                .expectStatus()
                .isEqualTo(429)
                .expectHeader()
                .exists("Retry-After");
        // The lab controls sit behind the same login.
        web.post()
                .uri("/lab/provider/reset")
                .headers(h -> h.setBasicAuth("ops", "guess"))
                .exchange()
                .expectStatus()
                .isEqualTo(429);
    }
}
