package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Reconciliation where the request does not end well: a client that leaves mid-stream before
 * the usage is charged its reservation (a bound the provider kept), an upstream failure the
 * prompt; never nothing, and the reservation never leaks.
 */
@GatewayTest
class ReconciliationTest {
    static final String BODY =
            "{\"model\":\"gpt-4o\",\"max_tokens\":4000,%s\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}";
    static final Sinks.Many<String> HELD = Sinks.many().multicast().onBackpressureBuffer();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
        if (req.body().contains("fail")) {
            return res.status(500)
                    .header("content-type", "application/json")
                    .sendString(Mono.just("{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"));
        }
        // A stream that sends two deltas and then hangs until the test lets it go.
        Flux<String> start = Flux.just(
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Chapter one begins\"}}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" on a quiet morning\"}}]}\n\n");
        return res.header("content-type", "text/event-stream")
                .sendString(start.concatWith(HELD.asFlux()), StandardCharsets.UTF_8);
    });

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
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
    TokenEstimator estimator;

    String tenantId;
    String key;

    @BeforeEach
    void tenant() {
        TestTenants.Created t = TestTenants.create(tenants, "r", "pro");
        tenantId = t.id();
        key = t.key();
    }

    long used() {
        return limiter.peek(tenantId, config.current().tier("pro").orElseThrow())
                .block()
                .get(0)
                .usedTokens();
    }

    WebClient.RequestHeadersSpec<?> post(String body) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body);
    }

    @Test
    void aClientThatLeavesMidStreamBeforeTheUsageIsChargedItsReservation() {
        String body = String.format(BODY, "\"stream\":true,", "Write a long story");
        RequestEstimate estimate =
                estimator.estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024);

        String first = post(body).retrieve().bodyToFlux(String.class).blockFirst(Duration.ofSeconds(10)); // then cancel
        assertThat(first).contains("Chapter one");

        // The provider was given a cap of 4,000 and may write all of it after the client left; it
        // will say no more: the reservation stands, never refunded down to what reached the client.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(used()).isEqualTo(estimate.totalTokens()));
    }

    @Test
    void anUpstreamFailureIsChargedThePromptOnly() {
        String body = String.format(BODY, "", "please fail");
        RequestEstimate estimate =
                estimator.estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024);
        int status = post(body)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(10));
        assertThat(status).isEqualTo(502); // the provider's 500 reaches the tenant as 502 upstream_error (the contract)
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(used()).isEqualTo(estimate.promptTokens()));
    }
}
