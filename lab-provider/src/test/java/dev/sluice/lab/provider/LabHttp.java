package dev.sluice.lab.provider;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/** A test client for the lab provider. Its pool is sized explicitly so it never becomes the bottleneck. */
final class LabHttp implements AutoCloseable {

    record Reply(int status, HttpHeaders headers, String body) {
        String header(String name) {
            return headers.get(name);
        }
    }

    private final ConnectionProvider pool;
    final HttpClient client;

    LabHttp(String origin, int maxConnections) {
        this.pool = ConnectionProvider.builder("lab-test")
                .maxConnections(maxConnections)
                .pendingAcquireMaxCount(-1)
                .build();
        this.client = HttpClient.create(pool).baseUrl(origin).responseTimeout(Duration.ofSeconds(10));
    }

    static LabHttp forServer(LabProviderServer server) {
        return new LabHttp("http://127.0.0.1:" + server.port(), 50);
    }

    Mono<Reply> send(String method, String path, String json, boolean withKey) {
        HttpClient c = client.headers(h -> {
            h.set("content-type", "application/json");
            if (withKey) {
                h.set("authorization", "Bearer sk-lab-test");
            }
        });
        return c.request(HttpMethod.valueOf(method))
                .uri(path)
                .send(json == null ? Mono.empty() : ByteBufFlux.fromString(Mono.just(json)))
                .responseSingle((resp, body) -> body.asString()
                        .defaultIfEmpty("")
                        .map(b -> new Reply(resp.status().code(), resp.responseHeaders(), b)));
    }

    Reply post(String path, String json) {
        return send("POST", path, json, true).block(Duration.ofSeconds(10));
    }

    Reply get(String path) {
        return send("GET", path, null, true).block(Duration.ofSeconds(10));
    }

    Reply put(String path, String json) {
        return send("PUT", path, json, true).block(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(5));
    }
}
