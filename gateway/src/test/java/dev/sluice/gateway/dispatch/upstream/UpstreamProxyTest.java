package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.ShutdownDrain;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
import reactor.test.StepVerifier;

/** The gateway against a scripted upstream over real HTTP: key swap, path mapping, streaming. */
@GatewayTest(properties = {"SLUICE_PROVIDER_API_KEY=sk-provider-secret", "sluice.demo.tenants=true"})
class UpstreamProxyTest {
    /** The rest of the stream waits on this sink, so the test decides when the upstream finishes. */
    static final Sinks.Many<String> REST_OF_STREAM = Sinks.many().unicast().onBackpressureBuffer();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
        if (req.body().contains("\"stream\":true")) {
            Flux<String> first = Flux.just("data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}\n\n");
            return res.header("content-type", "text/event-stream")
                    .sendString(first.concatWith(REST_OF_STREAM.asFlux()), StandardCharsets.UTF_8);
        }
        return res.header("content-type", "application/json")
                .sendString(Mono.just(
                        "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}"));
    });

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    ShutdownDrain.CloseTheLines closeTheLines;

    WebClient client() {
        return WebClient.create("http://127.0.0.1:" + port);
    }

    @Test
    void theProviderSeesItsOwnKeyOnItsOwnPathAndNeverTheTenantsKey() throws Exception {
        UPSTREAM.requests().clear();
        String body = client().post()
                .uri("/v1/chat/completions?trace=1")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));

        assertThat(body).contains("\"total_tokens\":5");
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        // Its own path, without the client's query: POST /v1/chat/completions takes no parameters.
        assertThat(seen.path()).isEqualTo("/openai/v1/chat/completions");
        assertThat(seen.headers().get("Authorization")).isEqualTo("Bearer sk-provider-secret");
        assertThat(seen.headers().toString()).doesNotContain("sk-sluice-demo-pro");
    }

    @Test
    void xApiKeyIsAcceptedAndRemovedToo() throws Exception {
        UPSTREAM.requests().clear();
        client().post()
                .uri("/v1/embeddings")
                .header("x-api-key", "sk-sluice-demo-free")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"m\",\"input\":\"x\"}")
                .retrieve()
                .toBodilessEntity()
                .block(Duration.ofSeconds(10));
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        assertThat(seen.headers().contains("x-api-key")).isFalse();
        assertThat(seen.headers().get("Authorization")).isEqualTo("Bearer sk-provider-secret");
    }

    @Test
    void aStreamReachesTheClientChunkByChunkBeforeTheUpstreamHasFinished() {
        Flux<String> events = client().post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .retrieve()
                .bodyToFlux(String.class);

        // The upstream has sent only its first chunk; the rest is held until the client has seen it.
        StepVerifier.create(events)
                .assertNext(first -> assertThat(first).contains("first"))
                .then(() -> {
                    REST_OF_STREAM.tryEmitNext("data: {\"choices\":[{\"delta\":{\"content\":\"second\"}}]}\n\n");
                    REST_OF_STREAM.tryEmitNext("data: [DONE]\n\n");
                    REST_OF_STREAM.tryEmitComplete();
                })
                .assertNext(second -> assertThat(second).contains("second"))
                .assertNext(done -> assertThat(done).isEqualTo("[DONE]"))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    /**
     * A stop is not always the end of a context: Spring's test framework pauses a cached context
     * (stop) and resumes it (start) for the next class that uses it. Closed lines must open again,
     * or every later request is answered busy.
     */
    @Test
    void linesClosedByAStopOpenAgainOnStart() {
        assertThat(chatStatus()).isEqualTo(200); // the budget's dispatcher exists now
        closeTheLines.stop();
        try {
            assertThat(chatStatus()).isEqualTo(503);
        } finally {
            closeTheLines.start();
        }
        assertThat(chatStatus()).isEqualTo(200);
    }

    int chatStatus() {
        return client().post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(10));
    }
}
