package dev.sluice.gateway.surface;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;

/**
 * The holes a hostile tenant found in the surface, each from outside over raw HTTP against a
 * recording upstream: variants of metered paths, credential minting, unmetered runs, uploads past
 * the limit, a client's query string, and a tier that does not open a family. Each failed before
 * the endpoint table: the request reached the provider uncharged.
 */
@GatewayTest
class ApiSurfaceHolesTest {
    static final AtomicInteger FILES = new AtomicInteger();
    /** A file made gets an id of its own (the gateway records its owner); anything else is answered a list. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> res.header(
                            "content-type", "application/json")
                    .sendString(Mono.just(
                            req.method().equals("POST") && req.path().endsWith("/v1/files")
                                    ? "{\"id\":\"file-h" + FILES.incrementAndGet() + "\",\"object\":\"file\"}"
                                    : "{\"object\":\"list\",\"data\":[]}")))
            .clearedBeforeEachTest();
    /** Small, so an upload past it is quick to send. */
    static final int FILE_LIMIT = 64 * 1024;

    static final int JSON_LIMIT = 32 * 1024;

    @DynamicPropertySource
    static void gateway(DynamicPropertyRegistry registry) throws IOException {
        String tiers = """
                tiers:
                  free: {tokens-per-minute: 100000, requests-per-minute: 600, priority: 3}
                  live:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                    endpoints: [chat, realtime]
                  narrow:
                    tokens-per-minute: 100000
                    requests-per-minute: 600
                    priority: 2
                    endpoints: [chat, completions]
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """;
        String file = TestTiers.written("api-surface-holes/tiers.yaml", tiers);
        registry.add("sluice.tiers.path", () -> file);
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
        registry.add("sluice.surface.max-file-bytes", () -> FILE_LIMIT);
        registry.add("sluice.max-request-bytes", () -> JSON_LIMIT);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    QuotaLimiter limiter;

    @Autowired
    ConfigRegistry config;

    String tenant;
    String tier;
    String key;

    @BeforeEach
    void freshTenant() {
        as("free");
    }

    void as(String tierName) {
        TestTenants.Created t = TestTenants.create(tenants, "holes", tierName);
        tenant = t.id();
        tier = tierName;
        key = t.key();
    }

    record Answer(int status, String head, String body) {
        String header(String name) {
            Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + ":\\s*(.*?)\\r?$")
                    .matcher(head);
            return m.find() ? m.group(1) : null;
        }
    }

    Answer raw(String method, String target, String contentType, String body) throws IOException {
        byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        return send(head(method, target, contentType) + "Content-Length: " + payload.length + "\r\n\r\n", payload);
    }

    String head(String method, String target, String contentType) {
        return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer "
                + key + "\r\n" + (contentType == null ? "" : "Content-Type: " + contentType + "\r\n");
    }

    Answer send(String head, byte[] payload) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(payload);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            String answerHead = text.substring(0, split);
            return new Answer(Integer.parseInt(answerHead.substring(9, 12)), answerHead, text.substring(split + 4));
        }
    }

    WindowUsage minute() {
        return limiter.peek(tenant, config.current().tier(tier).orElseThrow())
                .block()
                .get(0);
    }

    static void assertError(Answer a, int status, String code) {
        assertThat(a.status()).as(a.head() + "\n" + a.body()).isEqualTo(status);
        assertThat(a.body()).startsWith("{\"error\":{\"message\":").contains("\"code\":\"" + code + "\"");
    }

    void assertNothingChargedOrSent() {
        assertThat(minute().usedRequests()).isZero();
        assertThat(minute().usedTokens()).isZero();
        assertThat(UPSTREAM.requests()).isEmpty();
    }

    static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void variantsOfMeteredPathsAre404AndReachNothing() throws IOException {
        for (String path : List.of(
                "/v1/chat/Completions",
                "/v1/chat/completions.",
                "/v1/CHAT/completions",
                "/v1/Embeddings",
                "/v1/chat/completions/chatcmpl-1/extra",
                "/v1/embeddings/x",
                "/v1/images/generations.json",
                "/v1/audio/speech~")) {
            assertError(raw("POST", path, "application/json", CHAT), 404, "unknown_url");
        }
        assertNothingChargedOrSent();
    }

    @Test
    void aRealtimeClientSecretIs403ByDefaultAndReachesTheProviderOnlyOnATierThatListsRealtime() throws Exception {
        String body = "{\"session\":{\"type\":\"realtime\",\"model\":\"gpt-realtime\"}}";
        for (String path : List.of(
                "/v1/realtime/client_secrets", "/v1/realtime/sessions", "/v1/realtime/transcription_sessions")) {
            Answer a = raw("POST", path, "application/json", body);
            assertError(a, 403, "endpoint_not_allowed");
            assertThat(a.body()).contains("'realtime'").contains("tiers.yaml");
        }
        assertNothingChargedOrSent();

        as("live");
        Answer a = raw("POST", "/v1/realtime/client_secrets", "application/json", body);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        assertThat(seen.path()).isEqualTo("/openai/v1/realtime/client_secrets");
        assertThat(seen.body()).isEqualTo(body);
    }

    @Test
    void unmeteredOperationsAre403ByDefaultEvenInADefaultFamily() throws IOException {
        assertError(
                raw("POST", "/v1/threads/runs", "application/json", "{\"assistant_id\":\"asst_1\"}"),
                403,
                "endpoint_not_allowed");
        assertError(
                raw("POST", "/v1/threads/thread_1/runs", "application/json", "{\"assistant_id\":\"asst_1\"}"),
                403,
                "endpoint_not_allowed");
        Answer fineTuning = raw(
                "POST",
                "/v1/fine_tuning/jobs",
                "application/json",
                "{\"model\":\"gpt-4o-mini\",\"training_file\":\"file-1\"}");
        assertError(fineTuning, 403, "endpoint_not_allowed");
        assertThat(fineTuning.body()).contains("'fine_tuning'");
        // Families open by default, operations in them that spend unmetered are not.
        Answer compact = raw("POST", "/v1/responses/compact", "application/json", "{\"model\":\"gpt-4o\"}");
        assertError(compact, 403, "endpoint_not_allowed");
        assertThat(compact.body()).contains("POST /v1/responses/compact").contains("by default");
        assertError(
                raw("POST", "/v1/audio/transcriptions", "multipart/form-data; boundary=b", "--b--\r\n"),
                403,
                "endpoint_not_allowed");
        assertNothingChargedOrSent();
    }

    @Test
    void aTierWhoseEndpointsOmitAFamilyGets403OnIt() throws Exception {
        as("narrow");
        Answer a = raw(
                "POST",
                "/v1/embeddings",
                "application/json",
                "{\"model\":\"text-embedding-3-small\",\"input\":\"hi\"}");
        assertError(a, 403, "endpoint_not_allowed");
        assertThat(a.body()).contains("'embeddings'").contains("tier 'narrow'");
        assertError(raw("GET", "/v1/files", null, null), 403, "endpoint_not_allowed");
        assertNothingChargedOrSent();
        // What it lists is open; models always are.
        assertThat(raw("GET", "/v1/models", null, null).status()).isEqualTo(200);
        assertThat(raw(
                                "POST",
                                "/v1/completions",
                                "application/json",
                                "{\"model\":\"gpt-4o-mini\",\"prompt\":\"hi\",\"max_tokens\":5}")
                        .status())
                .isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).path()).isEqualTo("/openai/v1/completions");
    }

    @Test
    void anUploadOverTheLimitWithItsLengthDeclaredIs413BeforeTheProviderSeesIt() throws IOException {
        byte[] big = multipart(FILE_LIMIT + 1024);
        Answer a = send(
                head("POST", "/v1/files", "multipart/form-data; boundary=b") + "Content-Length: " + big.length
                        + "\r\n\r\n",
                big);
        assertError(a, 413, "request_too_large");
        assertThat(a.body()).contains("POST /v1/files").contains(Integer.toString(FILE_LIMIT));
        assertNothingChargedOrSent();
    }

    static byte[] chunked(byte[] body) {
        ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += 8192) {
            int n = Math.min(8192, body.length - at);
            chunked.write(
                    (Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII),
                    0,
                    Integer.toHexString(n).length() + 2);
            chunked.write(body, at, n);
            chunked.write('\r');
            chunked.write('\n');
        }
        chunked.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return chunked.toByteArray();
    }

    @Test
    void aJsonBodyOverItsLimitIs413DeclaredOrStreamed() throws IOException {
        String big = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + "y".repeat(JSON_LIMIT) + "\"}]}";
        assertError(raw("POST", "/v1/chat/completions", "application/json", big), 413, "request_too_large");
        Answer streamed = send(
                head("POST", "/v1/chat/completions", "application/json") + "Transfer-Encoding: chunked\r\n\r\n",
                chunked(big.getBytes(StandardCharsets.US_ASCII)));
        assertError(streamed, 413, "request_too_large");
        assertNothingChargedOrSent();
    }

    @Test
    void aBodyOnAnOperationThatTakesNoneIsNotForwarded() throws Exception {
        String file = ownFile();
        assertThat(raw("GET", "/v1/files/" + file, "application/json", "{\"smuggled\":true}")
                        .status())
                .isEqualTo(200);
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        assertThat(seen.path()).isEqualTo("/openai/v1/files/" + file);
        assertThat(seen.body()).isEmpty();
    }

    @Test
    void aChunkedUploadIsCutWith413WhereItPassesTheLimit() throws Exception {
        byte[] big = multipart(FILE_LIMIT * 2);
        Answer a = send(
                head("POST", "/v1/files", "multipart/form-data; boundary=b") + "Transfer-Encoding: chunked\r\n\r\n",
                chunked(big));
        assertError(a, 413, "request_too_large");
        assertThat(UPSTREAM.requests().poll(1, TimeUnit.SECONDS))
                .as("a whole upload never reached the provider")
                .isNull();

        // Within the limit, the same upload goes through whole.
        byte[] small = multipart(FILE_LIMIT / 2);
        Answer ok = send(
                head("POST", "/v1/files", "multipart/form-data; boundary=b") + "Content-Length: " + small.length
                        + "\r\n\r\n",
                small);
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).body()).hasSize(small.length);
    }

    @Test
    void onlyTheQueryParametersAnOperationTakesReachTheProvider() throws Exception {
        assertThat(raw("GET", "/v1/files?purpose=batch&key=sk-other&api-version=2024-10-01&limit=2", null, null)
                        .status())
                .isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).path())
                .isEqualTo("/openai/v1/files?purpose=batch&limit=2");

        String file = ownFile();
        assertThat(raw("GET", "/v1/files/" + file + "?key=sk-other", null, null).status())
                .isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).path()).isEqualTo("/openai/v1/files/" + file);

        assertThat(raw("GET", "/v1/batches?limit=3&after=batch_9&key=x&api-version=1", null, null)
                        .status())
                .isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).path())
                .isEqualTo("/openai/v1/batches?limit=3&after=batch_9");

        assertThat(raw("POST", "/v1/chat/completions?api-version=2024&key=x", "application/json", CHAT)
                        .status())
                .isEqualTo(200);
        assertThat(UPSTREAM.requests().poll(5, TimeUnit.SECONDS).path()).isEqualTo("/openai/v1/chat/completions");
    }

    /** A file of this tenant's, uploaded through the gateway (another's, or nobody's, would be a 404); its id. */
    String ownFile() throws Exception {
        byte[] form = multipart(100);
        Answer a = send(
                head("POST", "/v1/files", "multipart/form-data; boundary=b") + "Content-Length: " + form.length
                        + "\r\n\r\n",
                form);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(a.body());
        assertThat(id.find()).as(a.body()).isTrue();
        return id.group(1);
    }

    /** A form with one file part of about {@code size} bytes (not a batch's: its content is not JSONL). */
    static byte[] multipart(int size) {
        String start = "--b\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nassistants\r\n"
                + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n";
        String end = "\r\n--b--\r\n";
        return (start + "x".repeat(Math.max(0, size - start.length() - end.length())) + end)
                .getBytes(StandardCharsets.US_ASCII);
    }
}
