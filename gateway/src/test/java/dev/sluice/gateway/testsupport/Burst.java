package dev.sluice.gateway.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * {@code n} chat requests sent at once, request {@code i} to replica {@code i % replicas} with the key
 * {@code keyOf(i)}, all in flight together (a pool as large as the burst): what the two-replica tests
 * fire at a budget's edge. Answers are counted by status.
 */
public final class Burst {
    private Burst() {}

    public static Map<Integer, Long> statuses(
            List<GatewayReplica> replicas, int n, IntFunction<String> keyOf, String body) {
        ConnectionProvider pool = ConnectionProvider.builder("burst")
                .maxConnections(2 * n)
                .pendingAcquireMaxCount(-1)
                .build();
        try {
            WebClient http = WebClient.builder()
                    .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
                    .build();
            List<Integer> statuses = Flux.range(0, n)
                    .flatMap(
                            i -> http.post()
                                    .uri(replicas.get(i % replicas.size()).baseUrl() + "/v1/chat/completions")
                                    .header("Authorization", "Bearer " + keyOf.apply(i))
                                    .contentType(MediaType.APPLICATION_JSON)
                                    .bodyValue(body)
                                    .exchangeToMono(r -> r.releaseBody()
                                            .thenReturn(r.statusCode().value())),
                            n)
                    .collectList()
                    .block(Duration.ofSeconds(60));
            return statuses.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        } finally {
            pool.dispose();
        }
    }
}
