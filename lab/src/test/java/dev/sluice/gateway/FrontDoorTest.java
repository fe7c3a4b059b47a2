package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.GatewayTest;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The quickstart as a new user meets it: embedded defaults (memory store, lab provider, demo
 * tenants), a chat completion per demo key, streaming and not, and OpenAI-shaped refusals.
 */
@GatewayTest
class FrontDoorTest {
    static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"Extract page 1\"}]}";

    @Value("${local.server.port}")
    int port;

    WebClient client() {
        return WebClient.create("http://127.0.0.1:" + port);
    }

    ResponseEntity<String> post(String path, String key, String body) {
        WebClient.RequestBodySpec spec = client().post().uri(path).contentType(MediaType.APPLICATION_JSON);
        if (key != null) spec.header("Authorization", "Bearer " + key);
        return spec.bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(10));
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
        List<String> events = client().post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT.replace("{\"model\"", "{\"stream\":true,\"model\""))
                .retrieve()
                .bodyToFlux(String.class)
                .collectList()
                .block(Duration.ofSeconds(10));
        assertThat(events).hasSizeGreaterThan(2);
        assertThat(events.get(0)).contains("chat.completion.chunk");
        assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
    }

    @Test
    void aWrongKeyGets401InOpenAisShape() {
        ResponseEntity<String> r = post("/v1/chat/completions", "sk-wrong", CHAT);
        assertThat(r.getStatusCode().value()).isEqualTo(401);
        assertThat(r.getBody())
                .isEqualTo("{\"error\":{\"message\":\"Incorrect API key provided.\","
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
        String health = client().get()
                .uri("/actuator/health")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        assertThat(health).contains("\"status\":\"UP\"");
        String prometheus = client().get()
                .uri("/actuator/prometheus")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        assertThat(prometheus).contains("jvm_memory_used_bytes");
        // Decision counters exist at zero before their first event (nothing here is ever too large).
        assertThat(prometheus).contains("sluice_decisions_total{stage=\"too-large\",tier=\"enterprise\"} 0.0");
    }

    /**
     * A client that sends its next request on a keep-alive connection before the gateway has
     * finished with the current one (pipelining, or a client reusing the connection as soon as it
     * has read the last byte) keeps getting answers on that connection. Reactor Netty 1.3.6
     * stopped reading it when such a buffered request was answered at once, so the client's
     * following request hung until it gave up (reactor/reactor-netty#4361).
     */
    @Test
    void aKeepAliveConnectionKeepsAnsweringAfterARequestBufferedBehindASlowOne() throws Exception {
        String slow = request("/v1/chat/completions", "sk-sluice-demo-pro", CHAT);
        String refused = request("/v1/chat/completions", "sk-wrong", CHAT);
        String health = "GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000); // a hang ends in SocketTimeoutException
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            out.write((slow + refused).getBytes(StandardCharsets.UTF_8)); // the refusal waits behind the call
            out.flush();
            assertThat(readStatuses(in, seen, 2)).containsExactly(200, 401);
            for (int i = 0; i < 3; i++) { // then, one at a time, on the same connection
                out.write(health.getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertThat(readStatuses(in, seen, 3 + i)).hasSize(3 + i).endsWith(200);
            }
        }
    }

    private static String request(String path, String key, String body) {
        int length = body.getBytes(StandardCharsets.UTF_8).length;
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n" + body;
    }

    /** The status codes of every response read so far, once there are {@code count}. */
    private static List<Integer> readStatuses(InputStream in, ByteArrayOutputStream seen, int count) throws Exception {
        Pattern status = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");
        byte[] buf = new byte[8192];
        while (true) {
            Matcher m = status.matcher(seen.toString(StandardCharsets.ISO_8859_1));
            List<Integer> found = new ArrayList<>();
            while (m.find()) found.add(Integer.parseInt(m.group(1)));
            if (found.size() >= count) return found;
            int n = in.read(buf);
            if (n < 0) return found;
            seen.write(buf, 0, n);
        }
    }
}
