package dev.sluice.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;

/**
 * A client that accepts gzip, and a provider that compresses large answers for clients that
 * accept it (as web servers do past a minimum size): the usage is still read and charged, and
 * the client gets the answer it can read.
 */
@GatewayTest
class CompressedAnswerTest {
    static final String ANSWER =
            "{\"id\":\"chatcmpl-z\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                    + "{\"role\":\"assistant\",\"content\":\"" + " a".repeat(4000) + "\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":4000,\"total_tokens\":4010}}";

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
        String accepts = req.headers().get("accept-encoding");
        if (accepts != null && accepts.contains("gzip")) {
            return res.header("content-type", "application/json")
                    .header("content-encoding", "gzip")
                    .sendByteArray(Mono.just(gzip(ANSWER)));
        }
        return res.header("content-type", "application/json").sendString(Mono.just(ANSWER));
    });

    static byte[] gzip(String s) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (GZIPOutputStream z = new GZIPOutputStream(out)) {
                z.write(s.getBytes(StandardCharsets.UTF_8));
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    @Test
    void aCompressedAnswerIsReadForItsUsageAndReachesTheClientReadable() throws Exception {
        TestTenants.Created tenant = TestTenants.create(tenants, "gzip", "pro");
        HttpResponse<String> answer = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                                .header("Authorization", "Bearer " + tenant.key())
                                .header("Content-Type", "application/json")
                                .header("Accept-Encoding", "gzip, deflate")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"model\":\"gpt-4o-mini\",\"max_tokens\":4000,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("content-encoding")).isEmpty();
        assertThat(answer.body()).contains("\"total_tokens\":4010");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(limiter.peek(
                                        tenant.id(),
                                        config.current().tier("pro").orElseThrow())
                                .block()
                                .get(0)
                                .usedTokens())
                        .isEqualTo(4010));
    }
}
