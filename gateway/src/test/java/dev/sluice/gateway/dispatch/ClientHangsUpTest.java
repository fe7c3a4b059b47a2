package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Many clients close their connection the moment they have read the answer (curl, scripts, any
 * client without keep-alive). The gateway may still be giving back the call's provider slot then;
 * the client leaving must not stop that, or every such call keeps a slot until its lease expires.
 */
// Redis: giving a slot back is a round trip there, long enough for the client to be gone.
@RedisGatewayTest(properties = "sluice.demo.tenants=true")
class ClientHangsUpTest {
    static final String ANSWER =
            "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}";

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(ANSWER);

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    ProviderBudgetStore budgets;

    @Autowired
    ConfigRegistry config;

    @Test
    void aClientThatHangsUpAfterReadingTheAnswerLeavesNoSlotHeld() throws IOException {
        ProviderSettings provider = config.current().providers().get(0);
        String key = ProviderBudgetStore.key(provider, "gpt-4o");
        BudgetLimits limits = BudgetLimits.of(provider, "gpt-4o", Duration.ofMinutes(10));
        int before = budgets.snapshot(key, limits)
                .block(Duration.ofSeconds(5))
                .inFlight(); // the shared Redis may hold others'

        for (int i = 0; i < 30; i++) assertThat(callAndHangUp()).endsWith(ANSWER);

        // The answer can reach the client before the slot is given back: wait for that, not for a time.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(budgets.snapshot(key, limits)
                                .block(Duration.ofSeconds(5))
                                .inFlight())
                        .isEqualTo(before));
    }

    /** One keep-alive request on its own connection, closed as soon as the whole body has been read. */
    private String callAndHangUp() throws IOException {
        String body = "{\"model\":\"gpt-4o\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(
                    ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk-sluice-demo-pro\r\n"
                                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                                    + body)
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readResponse(socket.getInputStream());
        }
    }

    /** Headers, then exactly Content-Length bytes of body (the gateway passes the provider's length on). */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("connection closed in the headers: " + head);
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.US_ASCII);
        int length = headers.lines()
                .filter(l -> l.regionMatches(true, 0, "content-length:", 0, 15))
                .map(l -> Integer.parseInt(l.substring(15).trim()))
                .findFirst()
                .orElseThrow(() -> new IOException("no content-length: " + headers));
        byte[] body = in.readNBytes(length);
        return headers + new String(body, StandardCharsets.UTF_8);
    }
}
