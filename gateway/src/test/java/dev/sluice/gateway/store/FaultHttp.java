package dev.sluice.gateway.store;

import dev.sluice.gateway.testsupport.FakeUpstream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain blocking HTTP with each call's wall time: the fault tests assert "decided within a bound". */
final class FaultHttp {
    record Answer(int status, String body, String retryAfter, long millis) {}

    static final String CHAT =
            "{\"model\":\"gpt-4o\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    static final String UPSTREAM_ANSWER = FakeUpstream.CHAT_ANSWER;

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    FaultHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Answer chat(String key) {
        return send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT)));
    }

    /** A Responses create (stored, as by default): its id is recorded as the tenant's before the answer goes out. */
    Answer response(String key) {
        return send(HttpRequest.newBuilder(URI.create(base + "/v1/responses"))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"gpt-4o-mini\",\"max_output_tokens\":20,\"input\":\"hi\"}")));
    }

    Answer get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private Answer send(HttpRequest.Builder request) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> r =
                    client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(
                    r.statusCode(),
                    r.body(),
                    r.headers().firstValue("retry-after").orElse(null),
                    (System.nanoTime() - start) / 1_000_000);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
