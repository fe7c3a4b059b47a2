package dev.sluice.bench;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The upstream every arm calls: an OpenAI-compatible {@code POST /v1/chat/completions} that reads
 * the request and answers at once with a fixed small completion, its {@code usage}, and the
 * {@code x-ratelimit-*} headers a real provider sends. No work, no wait: what is measured is the
 * path in front of it. Runs in its own JVM ({@link #main}), shared by all arms.
 */
public final class FakeProvider {
    /** The request every arm is sent (OverheadBenchmark): 13 prompt tokens as OpenAI counts them, 16 output at most. */
    static final String REQUEST = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Say hello in one word.\"}]}";

    /**
     * The answer. {@code prompt_tokens} is what OpenAI reports for {@link #REQUEST}: 3 per message
     * + role (1) + content (6) + 3 priming, the count the gateway's estimator makes too.
     */
    static final String RESPONSE = "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":1700000000,"
            + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello.\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":2,\"total_tokens\":15}}";

    private FakeProvider() {}

    /** Binds on loopback ({@code port} 0: any free port). */
    public static DisposableServer start(int port) {
        byte[] body = RESPONSE.getBytes(StandardCharsets.UTF_8);
        return HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .route(routes -> routes.post(
                        "/v1/chat/completions",
                        (req, res) -> req.receive()
                                .then()
                                .then(res.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                                        // A real provider's account limits, far above what any run sends.
                                        .header("x-ratelimit-limit-requests", "1000000000")
                                        .header("x-ratelimit-remaining-requests", "999999999")
                                        .header("x-ratelimit-reset-requests", "1ms")
                                        .header("x-ratelimit-limit-tokens", "1000000000000")
                                        .header("x-ratelimit-remaining-tokens", "999999999985")
                                        .header("x-ratelimit-reset-tokens", "0s")
                                        .sendByteArray(Mono.just(body))
                                        .then())))
                .bindNow();
    }

    /** {@code FakeProvider <port>}: serves until killed. */
    public static void main(String[] args) {
        DisposableServer server = start(Integer.parseInt(args[0]));
        System.out.println("fake provider on " + server.port());
        server.onDispose().block();
    }
}
