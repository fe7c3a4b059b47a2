package dev.sluice.gateway.testsupport;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A scriptable OpenAI-compatible upstream on a loopback port, for tests that need to see
 * exactly what the gateway sends and to control exactly what it gets back. Real HTTP.
 */
public final class FakeUpstream implements AutoCloseable {
    /**
     * For a whole-app test that never calls upstream: the production gateway will not start without a
     * provider URL (only the quickstart's lab provider stands in), so point it where nothing listens.
     */
    public static final String NO_UPSTREAM_CALLS = "sluice.provider.url=http://127.0.0.1:9/v1";

    /** What the gateway sent. */
    public record Recorded(String method, String path, HttpHeaders headers, String body) {}

    private final DisposableServer server;
    private final BlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();

    private FakeUpstream(BiFunction<Recorded, HttpServerResponse, Publisher<Void>> handler) {
        this.server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle((req, res) -> req.receive()
                        .aggregate()
                        .asString()
                        .defaultIfEmpty("")
                        .flatMapMany(body -> {
                            Recorded r = new Recorded(
                                    req.method().name(),
                                    req.uri(),
                                    req.requestHeaders().copy(),
                                    body);
                            requests.add(r);
                            return handler.apply(r, res);
                        }))
                .bindNow();
    }

    public static FakeUpstream start(BiFunction<Recorded, HttpServerResponse, Publisher<Void>> handler) {
        return new FakeUpstream(handler);
    }

    /** A chat completion with its usage, as a provider answers one. */
    public static final String CHAT_ANSWER = "{\"id\":\"c1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\","
            + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":1,\"total_tokens\":9}}";

    /** An upstream that answers every call 200 with {@code json}. */
    public static FakeUpstream answering(String json) {
        return start(answerWith(json));
    }

    /** The handler of {@link #answering}: 200 with {@code json}. */
    static BiFunction<Recorded, HttpServerResponse, Publisher<Void>> answerWith(String json) {
        return (req, res) -> res.header("content-type", "application/json").sendString(Mono.just(json));
    }

    /** The base URL as an SDK takes it, with a prefix other than /v1 to prove the mapping. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.port() + "/openai/v1";
    }

    public BlockingQueue<Recorded> requests() {
        return requests;
    }

    /**
     * Stops the server. A connection a closed gateway still holds open (seen in clean-clone runs of
     * this round, after a gateway's shutdown phase gave up on a request) must not fail the teardown:
     * it is reported and the stop goes on.
     */
    @Override
    public void close() {
        try {
            server.disposeNow();
        } catch (IllegalStateException e) {
            System.err.println("FakeUpstream: stopped with connections still open: " + e.getMessage());
        }
    }
}
