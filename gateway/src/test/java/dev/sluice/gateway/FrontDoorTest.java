package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The quickstart as a new user meets it: embedded defaults (memory store, lab provider, demo
 * tenants), a chat completion per demo key, streaming and not, and OpenAI-shaped refusals.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FrontDoorTest {
    static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"Extract page 1\"}]}";

    @Value("${local.server.port}")
    int port;

    WebClient client() {
        return WebClient.create("http://127.0.0.1:" + port);
    }

    ResponseEntity<String> post(String path, String key, String body) {
        WebClient.RequestBodySpec spec = client().post().uri(path).contentType(MediaType.APPLICATION_JSON);
        if (key != null) spec.header("Authorization", "Bearer " + key);
        return spec.bodyValue(body).exchangeToMono(r -> r.toEntity(String.class)).block(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sk-sluice-demo-free", "sk-sluice-demo-pro", "sk-sluice-demo-enterprise"})
    void eachDemoKeyGetsAChatCompletionFromTheLabProvider(String key) {
        ResponseEntity<String> r = post("/v1/chat/completions", key, CHAT);
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        assertThat(r.getBody()).contains("\"chat.completion\"").contains("\"usage\"");
        assertThat(r.getHeaders().getFirst("X-Sluice-Tier")).isEqualTo(key.substring("sk-sluice-demo-".length()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sk-sluice-demo-free", "sk-sluice-demo-pro", "sk-sluice-demo-enterprise"})
    void eachDemoKeyGetsAStream(String key) {
        List<String> events = client().post().uri("/v1/chat/completions").header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT.replace("{\"model\"", "{\"stream\":true,\"model\""))
                .retrieve().bodyToFlux(String.class).collectList().block(Duration.ofSeconds(10));
        assertThat(events).hasSizeGreaterThan(2);
        assertThat(events.get(0)).contains("chat.completion.chunk");
        assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
    }

    @Test
    void aWrongKeyGets401InOpenAisShape() {
        ResponseEntity<String> r = post("/v1/chat/completions", "sk-wrong", CHAT);
        assertThat(r.getStatusCode().value()).isEqualTo(401);
        assertThat(r.getBody()).isEqualTo("{\"error\":{\"message\":\"Incorrect API key provided.\","
                + "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\",\"param\":null}}");
    }

    @Test
    void aMissingKeyGets401() {
        ResponseEntity<String> r = post("/v1/chat/completions", null, CHAT);
        assertThat(r.getStatusCode().value()).isEqualTo(401);
        assertThat(r.getBody()).contains("\"code\":\"invalid_api_key\"").contains("Missing API key");
    }

    @Test
    void aSuspendedTenantGets403() {
        ResponseEntity<String> r = post("/v1/chat/completions", "sk-sluice-demo-suspended", CHAT);
        assertThat(r.getStatusCode().value()).isEqualTo(403);
        assertThat(r.getBody()).contains("\"code\":\"account_suspended\"");
    }

    @Test
    void healthAndMetricsAreUpWithoutRedis() {
        String health = client().get().uri("/actuator/health").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10));
        assertThat(health).contains("\"status\":\"UP\"");
        String prometheus = client().get().uri("/actuator/prometheus").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10));
        assertThat(prometheus).contains("jvm_memory_used_bytes");
    }
}
