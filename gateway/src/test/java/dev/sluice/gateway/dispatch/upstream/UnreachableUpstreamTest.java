package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.GatewayTest;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/** A provider nobody answers at: the tenant gets 502 in OpenAI's shape, not a stack trace. */
@GatewayTest(properties = "sluice.demo.tenants=true")
class UnreachableUpstreamTest {
    @DynamicPropertySource
    static void deadProvider(DynamicPropertyRegistry registry) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: connections to it are refused
        }
        int p = port;
        registry.add("sluice.provider.url", () -> "http://127.0.0.1:" + p + "/v1");
    }

    @Value("${local.server.port}")
    int port;

    @Test
    void anUnreachableProviderIs502WithAnOpenAiBody() {
        ResponseEntity<String> r = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchangeToMono(x -> x.toEntity(String.class))
                .block(Duration.ofSeconds(20));
        assertThat(r.getStatusCode().value()).isEqualTo(502);
        assertThat(r.getBody()).contains("\"code\":\"upstream_unavailable\"");
    }
}
