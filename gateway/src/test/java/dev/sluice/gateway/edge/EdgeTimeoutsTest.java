package dev.sluice.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The listener against hostile and careless clients on raw sockets, with short configured
 * timeouts: every stalled connection is closed within its timeout (with a 408 where an HTTP
 * answer is still possible), while a response stream slower than every timeout runs to its end.
 */
@GatewayTest(
        properties = {
            "sluice.demo.tenants=true",
            "sluice.edge.idle-timeout=" + EdgeTimeoutsTest.IDLE_MS + "ms",
            "sluice.edge.read-timeout=" + EdgeTimeoutsTest.READ_MS + "ms",
            "sluice.edge.request-timeout=" + EdgeTimeoutsTest.REQUEST_MS + "ms",
            "sluice.edge.max-connections-per-client=" + EdgeTimeoutsTest.MAX_CONNECTIONS
        })
@ExtendWith(OutputCaptureExtension.class)
class EdgeTimeoutsTest {
    static final int IDLE_MS = 600;
    static final int READ_MS = 600;
    static final int REQUEST_MS = 1200;
    static final int MAX_CONNECTIONS = 12;
    /** The provider's pause between two events of a stream: longer than every edge timeout. */
    static final int PAUSE_MS = REQUEST_MS + 300;
    /** How long a test waits for the gateway to act: the timeout under test plus scheduling slack. */
    static final int SLACK_MS = 2500;

    static final String KEY = "sk-sluice-demo-enterprise";
    static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    /** A provider whose stream pauses longer than every edge timeout between its events. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM =
            FakeUpstreamExtension.start((req, res) -> res.header("content-type", "text/event-stream")
                    .sendString(
                            Flux.concat(
                                    Mono.just("data: {\"choices\":[{\"delta\":{\"content\":\"one\"}}]}\n\n"),
                                    Flux.just(
                                                    "data: {\"choices\":[{\"delta\":{\"content\":\"two\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\n",
                                                    "data: [DONE]\n\n")
                                            .delayElements(Duration.ofMillis(PAUSE_MS))),
                            StandardCharsets.UTF_8));

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    ConnectionCounter connections;

    @BeforeEach
    void noConnectionLeftFromAnotherTest() {
        await().atMost(Duration.ofSeconds(5)).until(() -> connections.open("127.0.0.1") == 0);
    }

    /** What the gateway wrote before it closed the connection; fails if it is still open after {@code waitMs}. */
    String untilClosed(Socket socket, int waitMs) throws IOException {
        socket.setSoTimeout(waitMs);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) != -1; ) out.write(buf, 0, n);
        } catch (SocketTimeoutException e) {
            throw new AssertionError(
                    "still open after " + waitMs + " ms; got so far: " + out.toString(StandardCharsets.UTF_8));
        } catch (SocketException reset) {
            // closed by a reset: as closed as it gets
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    Socket open() throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setTcpNoDelay(true);
        return s;
    }

    static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    @Test
    void aConnectionThatSendsNothingIsClosed() throws IOException {
        try (Socket s = open()) {
            long start = System.nanoTime();
            assertThat(untilClosed(s, IDLE_MS + SLACK_MS)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(IDLE_MS - 100));
        }
    }

    @Test
    void halfAHeaderIsClosed() throws IOException {
        try (Socket s = open()) {
            send(s, "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthoriz");
            String answer = untilClosed(s, IDLE_MS + SLACK_MS);
            assertThat(answer)
                    .satisfiesAnyOf(
                            a -> assertThat(a).isEmpty(), a -> assertThat(a).startsWith("HTTP/1.1 408"));
        }
    }

    @Test
    void aStalledBodyGets408AndIsClosed(CapturedOutput output) throws IOException {
        int mark = output.getOut().length();
        try (Socket s = open()) {
            send(
                    s,
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + KEY
                            + "\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"model\":");
            assertThat(untilClosed(s, READ_MS + SLACK_MS))
                    .startsWith("HTTP/1.1 408")
                    .contains("\"code\":\"request_timeout\"")
                    .contains("\"type\":\"invalid_request_error\"");
        }
        assertQuiet(output, mark);
    }

    /** Nothing at ERROR and no stack trace since {@code mark}: a client's failure is the client's, not the gateway's. */
    static void assertQuiet(CapturedOutput output, int mark) {
        String since = output.getOut().substring(mark);
        assertThat(since).doesNotContain(" ERROR ").doesNotContain("\tat ");
    }

    @Test
    void aClientThatHangsUpMidBodyIsNotAnError(CapturedOutput output) throws IOException {
        int mark = output.getOut().length();
        Socket s = open();
        send(
                s,
                "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + KEY
                        + "\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"model\":");
        s.setSoLinger(true, 0); // a reset, as when a process is killed
        s.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> connections.open("127.0.0.1") == 0);
        // The gateway still answers, and has logged nothing about the hang-up above DEBUG.
        try (Socket next = open()) {
            send(next, "GET /actuator/health HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n");
            assertThat(untilClosed(next, SLACK_MS)).startsWith("HTTP/1.1 200");
        }
        assertQuiet(output, mark);
    }

    @Test
    void aChunkedBodyNeverTerminatedGets408AndIsClosed(CapturedOutput output) throws IOException {
        int mark = output.getOut().length();
        try (Socket s = open()) {
            send(
                    s,
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + KEY
                            + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{\"model\":\r\n");
            assertThat(untilClosed(s, READ_MS + SLACK_MS)).startsWith("HTTP/1.1 408");
        }
        assertQuiet(output, mark);
    }

    @Test
    void aBodyTricklingInUnderTheReadTimeoutIsStillBoundByTheRequestTimeout() throws Exception {
        try (Socket s = open()) {
            send(
                    s,
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + KEY
                            + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
            long start = System.nanoTime();
            // One byte every READ_MS / 3: the read timeout never fires, the request timeout does.
            s.setSoTimeout(READ_MS / 3);
            StringBuilder answer = new StringBuilder();
            byte[] buf = new byte[4096];
            while (Duration.ofNanos(System.nanoTime() - start).toMillis() < REQUEST_MS + SLACK_MS) {
                try {
                    send(s, "1\r\n \r\n");
                } catch (IOException closed) {
                    break;
                }
                try {
                    int n = s.getInputStream().read(buf);
                    if (n == -1) break;
                    answer.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                } catch (SocketTimeoutException e) {
                    // nothing yet: trickle on
                } catch (SocketException reset) {
                    break;
                }
            }
            assertThat(answer.toString()).startsWith("HTTP/1.1 408");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofMillis(REQUEST_MS + SLACK_MS));
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterItsAnswer() throws IOException {
        try (Socket s = open()) {
            send(s, "GET /actuator/health HTTP/1.1\r\nHost: sluice\r\n\r\n");
            // The answer first (however long a loaded machine takes), then the idle timeout alone.
            s.setSoTimeout(20_000);
            StringBuilder answer = new StringBuilder();
            byte[] buf = new byte[4096];
            while (!answer.toString().contains("UP")) {
                int n = s.getInputStream().read(buf);
                assertThat(n).as("closed before its answer: " + answer).isPositive();
                answer.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
            assertThat(answer.toString()).startsWith("HTTP/1.1 200");
            assertThat(untilClosed(s, IDLE_MS + SLACK_MS)).isEmpty();
        }
    }

    @Test
    void aStreamSlowerThanEveryTimeoutIsNotCut() {
        long start = System.nanoTime();
        List<String> events = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + KEY)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT.replace("{\"model\"", "{\"stream\":true,\"model\""))
                .retrieve()
                .bodyToFlux(String.class)
                .collectList()
                .block(Duration.ofSeconds(20));
        assertThat(events).hasSize(3).last().isEqualTo("[DONE]");
        // Each pause outlasted the idle, read and request timeouts, and so did the whole stream.
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(Duration.ofMillis(2L * PAUSE_MS));
    }

    @Test
    void anAddressHoldsAtMostItsConnectionsAndTheNextGets429() throws IOException {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS; i++) held.add(open());
            await().atMost(Duration.ofSeconds(5)).until(() -> connections.open("127.0.0.1") == MAX_CONNECTIONS);
            try (Socket extra = open()) {
                String answer = untilClosed(extra, SLACK_MS);
                assertThat(answer).startsWith("HTTP/1.1 429").contains("\"code\":\"too_many_connections\"");
            }
            held.remove(0).close();
            await().atMost(Duration.ofSeconds(5)).until(() -> connections.open("127.0.0.1") == MAX_CONNECTIONS - 1);
            try (Socket again = open()) {
                send(again, "GET /actuator/health HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n");
                assertThat(untilClosed(again, SLACK_MS)).startsWith("HTTP/1.1 200");
            }
        } finally {
            for (Socket s : held) s.close();
        }
    }

    @Test
    void aRequestLineNettyCannotDecodeGets400WithAnOpenAiBody() throws IOException {
        try (Socket s = open()) {
            send(s, "GARBAGE\u0001 /v1/chat/completions HTTP/9.9\r\n\r\n");
            String answer = untilClosed(s, SLACK_MS);
            assertThat(answer)
                    .startsWith("HTTP/1.1 400")
                    .contains("\"type\":\"invalid_request_error\"")
                    .contains("\"error\"");
        }
    }

    @Test
    void anOversizedRequestLineGets414WithAnOpenAiBody() throws IOException {
        try (Socket s = open()) {
            send(s, "GET /v1/models?q=" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: sluice\r\n\r\n");
            String answer = untilClosed(s, SLACK_MS);
            assertThat(answer).startsWith("HTTP/1.1 414").contains("\"code\":\"request_too_large\"");
        }
    }

    @Test
    void oversizedHeadersGet431WithAnOpenAiBody() throws IOException {
        try (Socket s = open()) {
            send(s, "GET /v1/models HTTP/1.1\r\nHost: sluice\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n");
            String answer = untilClosed(s, SLACK_MS);
            assertThat(answer).startsWith("HTTP/1.1 431").contains("\"type\":\"invalid_request_error\"");
        }
    }

    @Test
    void aMalformedChunkGets400WithABody(CapturedOutput output) throws IOException {
        int mark = output.getOut().length();
        try (Socket s = open()) {
            send(
                    s,
                    "POST /v1/chat/completions HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + KEY
                            + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");
            String answer = untilClosed(s, SLACK_MS);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("\"type\":\"invalid_request_error\"");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> connections.open("127.0.0.1") == 0);
        assertQuiet(output, mark);
    }
}
