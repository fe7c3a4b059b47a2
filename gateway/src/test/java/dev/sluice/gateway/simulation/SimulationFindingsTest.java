package dev.sluice.gateway.simulation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What the simulation found about charges, on the real gateway over real HTTP: each test asserts
 * the contract ("a request that never reached the provider is not charged") and fails on this
 * branch as the simulation said (docs/simulation.md, "Findings"). Disabled until the charge is
 * fixed; enable each with its fix.
 */
@GatewayTest
class SimulationFindingsTest {
    static final String BODY =
            "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}";
    static final Sinks.Empty<Void> RELEASE = Sinks.empty();
    static final FakeUpstream UPSTREAM =
            FakeUpstream.start((req, res) -> req.body().contains("hold")
                    ? res.header("content-type", "application/json")
                            .sendString(RELEASE.asMono().then(Mono.just(FakeUpstream.CHAT_ANSWER)))
                    : res.header("content-type", "application/json").sendString(Mono.just(FakeUpstream.CHAT_ANSWER)));

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @AfterAll
    static void stop() {
        RELEASE.tryEmitEmpty();
        UPSTREAM.close();
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

    @Autowired
    MeterRegistry meters;

    SluiceConfig before;

    @BeforeEach
    void remember() {
        before = config.current();
    }

    @AfterEach
    void restore() {
        config.replace(before);
    }

    /** The configured provider with other "*" limits or another address. */
    private void provider(int maxInFlight, String baseUrl) {
        ProviderSettings p = before.providers().get(0);
        ProviderSettings changed = new ProviderSettings(
                p.name(),
                baseUrl,
                p.apiKeyEnv(),
                p.headroom(),
                Map.of(ProviderSettings.ANY_MODEL, new ModelLimits(1_500, 300_000, maxInFlight, 3.0)),
                p.upstreamModels());
        config.replace(before.withProviders(List.of(changed)));
    }

    private long used(String tenant) {
        return limiter.peek(tenant, config.current().tier("pro").orElseThrow())
                .block()
                .get(0)
                .usedTokens();
    }

    private WebClient.RequestHeadersSpec<?> post(String key, String body) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body);
    }

    private double depth() {
        var g = meters.find("sluice.queue.depth").gauges();
        return g.stream().mapToDouble(x -> x.value()).sum();
    }

    /**
     * Simulation finding 1: the client of a request waiting in a dispatch line hangs up. Nothing
     * reached the provider, yet the settle stage charges the whole reservation: no stage marks the
     * request never sent, and the response's status, never set, reads as 200 (Reactor Netty's
     * default), so it is settled as a call cut off without usage.
     */
    @Test
    void aRequestWhoseClientLeavesWhileItWaitsInLineIsNotCharged() {
        provider(1, before.providers().get(0).baseUrl());
        TestTenants.Created holder = TestTenants.create(tenants, "f1h", "pro");
        TestTenants.Created waiter = TestTenants.create(tenants, "f1w", "pro");
        Disposable hold = post(holder.key(), String.format(BODY, "hold the only slot"))
                .retrieve()
                .bodyToMono(String.class)
                .subscribe(x -> {}, e -> {});
        await().atMost(Duration.ofSeconds(10))
                .until(() -> UPSTREAM.requests().stream().anyMatch(r -> r.body().contains("hold")));

        String body = String.format(BODY, "wait in line, then leave");
        RequestEstimate estimate =
                estimator.estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024);
        Disposable waiting =
                post(waiter.key(), body).retrieve().bodyToMono(String.class).subscribe(x -> {}, e -> {});
        await().atMost(Duration.ofSeconds(10)).until(() -> depth() >= 1);
        assertThat(used(waiter.id())).as("charged while it waits").isEqualTo(estimate.totalTokens());
        waiting.dispose(); // the client hangs up

        await().pollDelay(500, TimeUnit.MILLISECONDS)
                .atMost(Duration.ofSeconds(10))
                .until(() -> depth() == 0);
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(used(waiter.id()))
                        .as("a request that never reached the provider is refunded")
                        .isZero());
        hold.dispose();
    }

    /**
     * Simulation finding 2: every connection to the provider is refused. The provider budget
     * refunds the attempt (LeaseSettlement.notSent: nothing reached it), but the tenant's 502
     * upstream_unavailable is settled as a failure after the provider had the prompt: the prompt
     * is charged.
     */
    @Test
    void aRequestNoProviderCouldBeConnectedToIsNotCharged() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort(); // closed again: connections to it are refused
        }
        provider(200, "http://127.0.0.1:" + dead + "/v1");
        TestTenants.Created t = TestTenants.create(tenants, "f2", "pro");
        int status = post(t.key(), String.format(BODY, "nobody answers"))
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(10));
        assertThat(status).isEqualTo(502);
        await().pollDelay(300, TimeUnit.MILLISECONDS)
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(used(t.id()))
                        .as("a request that never reached a provider is refunded")
                        .isZero());
    }
}
