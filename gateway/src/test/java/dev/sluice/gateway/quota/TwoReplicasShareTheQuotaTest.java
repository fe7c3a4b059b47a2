package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestTenants;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Two gateway replicas on one Redis, hundreds of concurrent requests from one tenant split
 * between them: together they admit exactly what the tier allows, never more. The upstream
 * reports no usage, so every admitted request keeps its full estimate.
 */
class TwoReplicasShareTheQuotaTest {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering("{\"id\":\"no-usage\"}");

    static GatewayReplica a;
    static GatewayReplica b;

    static GatewayReplica replica() {
        return GatewayReplica.builder()
                .redis()
                .upstream(UPSTREAM)
                // What is under test is the shared atomic charge, not the timeout: a slow, loaded CI box
                // must not push pro (fail-open) onto its per-replica fallback.
                .property("sluice.store.timeout", "10s")
                .start();
    }

    @BeforeAll
    static void start() {
        a = replica();
        b = replica();
    }

    @AfterAll
    static void stop() {
        a.close();
        b.close();
    }

    @Test
    void concurrentRequestsThroughTwoReplicasNeverExceedTheTenantsCap() {
        String key =
                TestTenants.create(a.bean(TenantStore.class), "twin", "pro").key(); // Redis: shared with b

        String body =
                "{\"model\":\"gpt-4o\",\"max_tokens\":1990,\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}";
        long estimate = a.bean(TokenEstimator.class)
                .estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024)
                .totalTokens();
        long cap = 150_000; // pro: 100 000 tokens per minute × burst 1.5

        ConnectionProvider pool = ConnectionProvider.builder("twins")
                .maxConnections(400)
                .pendingAcquireMaxCount(-1)
                .build();
        WebClient http = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
                .build();
        List<Integer> statuses = Flux.range(0, 300)
                .flatMap(
                        i -> http.post()
                                .uri("http://127.0.0.1:" + (i % 2 == 0 ? a : b).port() + "/v1/chat/completions")
                                .header("Authorization", "Bearer " + key)
                                .contentType(MediaType.APPLICATION_JSON)
                                .bodyValue(body)
                                .exchangeToMono(r -> r.releaseBody()
                                        .thenReturn(r.statusCode().value())),
                        300)
                .collectList()
                .block(Duration.ofSeconds(60));
        pool.dispose();

        Map<Integer, Long> byStatus =
                statuses.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        long admitted = byStatus.getOrDefault(200, 0L);
        assertThat(admitted * estimate).as("tokens admitted, %s", byStatus).isLessThanOrEqualTo(cap);
        assertThat(admitted).as("all that fits is admitted, %s", byStatus).isEqualTo(cap / estimate);
        assertThat(byStatus.get(429)).isEqualTo(300 - admitted);
    }
}
