package dev.sluice.gateway.surface;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The OpenAI surface answered completely, over raw HTTP (so no client normalises a path or a
 * method on the test's behalf) against a recording upstream: /v1/models from the gateway
 * itself, other endpoints proxied under the request count, and every malformed request a
 * clean OpenAI-shaped 4xx that reaches nothing and costs the tenant nothing.
 */
@GatewayTest
class OpenAiSurfaceTest {
    /** Chat answers with usage: the prompt as 10 tokens and max_tokens (or 5) as the completion; the rest with {}. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
                if (!req.path().endsWith("/chat/completions")) {
                    return res.header("content-type", "application/json")
                            .sendString(Mono.just("{\"object\":\"list\",\"data\":[]}"));
                }
                Matcher m = Pattern.compile("\"max_tokens\":(\\d+)").matcher(req.body());
                long completion = m.find() ? Long.parseLong(m.group(1)) : 5;
                return res.header("content-type", "application/json")
                        .sendString(Mono.just(
                                "{\"id\":\"x\",\"object\":\"chat.completion\",\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
                                        + completion + ",\"total_tokens\":" + (10 + completion) + "}}"));
            })
            .clearedBeforeEachTest();

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    /** A failure of the gateway's own, after the reservation: the request with this header throws. */
    @TestConfiguration
    static class Faults {
        @Bean
        GlobalFilter failsOnOurSide() {
            class Failing implements GlobalFilter, Ordered {
                @Override
                public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
                    if (exchange.getRequest().getHeaders().containsHeader("X-Test-Fail")) {
                        return Mono.error(new IllegalStateException("a bug of ours"));
                    }
                    return chain.filter(exchange);
                }

                @Override
                public int getOrder() {
                    return FilterOrder.QUOTA + 50; // after the charge, before dispatch
                }
            }
            return new Failing();
        }
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
    String key;

    @BeforeEach
    void freshTenant() {
        TestTenants.Created t = TestTenants.create(tenants, "surface", "free");
        tenant = t.id();
        key = t.key();
    }

    record Answer(int status, String head, String body) {
        String header(String name) {
            Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + ":\\s*(.*?)\\r?$")
                    .matcher(head);
            return m.find() ? m.group(1) : null;
        }
    }

    /** One request exactly as written, on its own connection. */
    Answer raw(String method, String target, String contentType, String body, String... headers) throws IOException {
        byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder req = new StringBuilder()
                .append(method)
                .append(' ')
                .append(target)
                .append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ")
                .append(key)
                .append("\r\n");
        if (contentType != null)
            req.append("Content-Type: ").append(contentType).append("\r\n");
        for (String h : headers) req.append(h).append("\r\n");
        req.append("Content-Length: ").append(payload.length).append("\r\n\r\n");
        return exchange(req.toString(), payload);
    }

    /** Sends {@code head} and {@code payload} as they are, reads the answer to the end. */
    Answer exchange(String head, byte[] payload) throws IOException {
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
            String rest = text.substring(split + 4);
            Answer a = new Answer(Integer.parseInt(answerHead.substring(9, 12)), answerHead, rest);
            return "chunked".equalsIgnoreCase(a.header("Transfer-Encoding"))
                    ? new Answer(a.status(), answerHead, dechunked(rest))
                    : a;
        }
    }

    private static String dechunked(String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, eol).trim(), 16);
            if (size == 0) return out.toString();
            out.append(body, eol + 2, eol + 2 + size); // ASCII bodies: chars are bytes
            at = eol + 2 + size + 2;
        }
    }

    Answer chat(String maxTokens, String... headers) throws IOException {
        return raw(
                "POST",
                "/v1/chat/completions",
                "application/json",
                "{\"model\":\"gpt-4o-mini\"" + (maxTokens == null ? "" : ",\"max_tokens\":" + maxTokens)
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"Extract page 7\"}]}",
                headers);
    }

    WindowUsage minute() {
        return limiter.peek(tenant, config.current().tier("free").orElseThrow())
                .block()
                .get(0);
    }

    static void assertOpenAiError(Answer a, int status, String code) {
        assertThat(a.status()).as(a.head() + "\n" + a.body()).isEqualTo(status);
        assertThat(a.body())
                .as(a.body())
                .startsWith("{\"error\":{\"message\":")
                .contains("\"type\":")
                .contains("\"code\":\"" + code + "\"")
                .contains("\"param\":");
        assertThat(a.header("Content-Type")).startsWith("application/json");
    }

    void assertQuotaUntouchedAndNothingProxied() {
        assertThat(minute().usedRequests()).isZero();
        assertThat(minute().usedTokens()).isZero();
        assertThat(UPSTREAM.requests()).isEmpty();
    }

    // --- /v1/models

    @Test
    void modelsAreListedInOpenAisShapeFromTheConfigurationWithoutAnUpstreamCall() throws IOException {
        Answer list = raw("GET", "/v1/models", null, null);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body())
                .startsWith("{\"object\":\"list\",\"data\":[")
                .contains("{\"id\":\"gpt-4o-mini\",\"object\":\"model\",\"created\":0,\"owned_by\":\"default\"}")
                .contains("\"id\":\"gpt-4o\"")
                .contains("\"id\":\"gpt-4.1-mini\"")
                .doesNotContain("\"*\"");

        Answer one = raw("GET", "/v1/models/gpt-4.1-mini", null, null);
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.body())
                .isEqualTo("{\"id\":\"gpt-4.1-mini\",\"object\":\"model\",\"created\":0,\"owned_by\":\"default\"}");

        assertOpenAiError(raw("GET", "/v1/models/no-such-model", null, null), 404, "model_not_found");
        assertOpenAiError(raw("DELETE", "/v1/models/gpt-4o", null, null), 405, "method_not_allowed");
        assertQuotaUntouchedAndNothingProxied();
    }

    @Test
    void modelsNeedATenantKey() throws IOException {
        key = "sk-wrong";
        assertOpenAiError(raw("GET", "/v1/models", null, null), 401, "invalid_api_key");
    }

    // --- other endpoints

    @Test
    void otherOpenAiEndpointsAreProxiedAndCountedAsARequestWithNoTokens() throws Exception {
        Answer files = raw("GET", "/v1/files?purpose=batch", null, null);
        assertThat(files.status()).as(files.body()).isEqualTo(200);
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        assertThat(seen.method()).isEqualTo("GET");
        assertThat(seen.path()).isEqualTo("/openai/v1/files?purpose=batch");

        // An object this tenant did not create through Sluice is nobody's: refused before it is counted (objects/).
        Answer delete = raw("DELETE", "/v1/files/file-abc123", null, null);
        assertThat(delete.status()).isEqualTo(404);
        Answer batches = raw("GET", "/v1/batches?limit=5", null, null);
        assertThat(batches.status()).as(batches.body()).isEqualTo(200);
        Answer moderation = raw("POST", "/v1/moderations", "application/json", "{\"input\":\"hi\"}");
        assertThat(moderation.status()).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(minute().usedRequests()).isEqualTo(3);
            assertThat(minute().usedTokens()).isEqualTo(1); // the moderation's input, "hi": moderations are metered
        });
    }

    // --- paths

    @Test
    void unknownPathsAndTraversalGetAnOpenAiShaped4xxAndReachNothing() throws IOException {
        for (String path : List.of(
                "/v1/../admin/api/tiers",
                "/v1/%2e%2e/admin/api/tiers",
                "/v1/%2E%2E/%2E%2E/admin/api/tiers",
                "/v1/chat/completions/..",
                "/v1/./chat/completions",
                "/v1//chat/completions",
                "/v1/chat%2fcompletions",
                "/v1/..%2fadmin/api/tiers",
                "/v1/files/..\\..\\admin",
                "/v1/files/%00",
                "/v1/models/")) {
            Answer a = raw("GET", path, null, null);
            assertThat(a.body()).as(path).startsWith("{\"error\"");
            assertOpenAiError(a, 400, "invalid_path");
            assertThat(a.body()).doesNotContain("tiers:");
        }
        for (String path :
                List.of("/v1", "/v1/", "/v1/admin/api/tiers", "/v1/no-such-endpoint", "/v1/organization/users")) {
            Answer a = raw("GET", path, null, null);
            assertThat(a.status()).as(path).isIn(400, 404);
            assertThat(a.body()).as(path).startsWith("{\"error\":{\"message\":");
        }
        assertOpenAiError(raw("POST", "/v1/no-such-endpoint", "application/json", "{}"), 404, "unknown_url");
        // Outside /v1 too: no route serves them, and the answer is still OpenAI's shape.
        for (String path :
                List.of("/", "/v2/chat/completions", "/V1/chat/completions", "//v1/chat/completions", "/favicon.ico")) {
            assertOpenAiError(raw("GET", path, null, null), 404, "unknown_url");
        }
        assertQuotaUntouchedAndNothingProxied();
    }

    @Test
    void whatNettyCannotDecodeIsAnsweredInOpenAisShapeToo() throws IOException {
        assertOpenAiError(raw("GET", "/v1/files/" + "a".repeat(10_000), null, null), 414, "request_too_large");
        assertOpenAiError(
                raw("GET", "/v1/files", null, null, "X-Big: " + "b".repeat(20_000)), 431, "request_too_large");
        assertOpenAiError(exchange("NOT AN HTTP REQUEST LINE AT ALL\r\n\r\n", new byte[0]), 400, "malformed_http");
        assertOpenAiError(raw("GET", "/v1/files?q=%zz", null, null), 400, "invalid_path");
        assertQuotaUntouchedAndNothingProxied();
    }

    // --- methods

    @Test
    void aWrongMethodOnACountedEndpointIs405WithAllow() throws IOException {
        // GET /v1/chat/completions lists stored completions: a read, not a wrong method.
        for (String method : List.of("DELETE", "OPTIONS", "PUT", "PATCH")) {
            Answer a = raw(method, "/v1/chat/completions", null, null);
            assertOpenAiError(a, 405, "method_not_allowed");
            assertThat(a.header("Allow")).isEqualTo("POST, GET");
        }
        assertThat(raw("GET", "/v1/embeddings", null, null).header("Allow")).isEqualTo("POST");
        assertQuotaUntouchedAndNothingProxied();
    }

    @Test
    void anInventedMethodIsRefusedAndAddsNoMetricSeries() throws IOException {
        for (String method : List.of("FROBNICATE", "BREW", "PROPFIND")) {
            assertOpenAiError(raw(method, "/v1/files", null, null), 405, "method_not_allowed");
            assertOpenAiError(raw(method, "/v1/chat/completions", "application/json", "{}"), 405, "method_not_allowed");
        }
        assertQuotaUntouchedAndNothingProxied();
        String metrics = raw("GET", "/actuator/prometheus", null, null).body();
        assertThat(metrics).doesNotContain("FROBNICATE").doesNotContain("BREW").doesNotContain("PROPFIND");
    }

    // --- media types

    @Test
    void aCountedEndpointTakesOnlyJson() throws IOException {
        String body = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        for (String type : List.of(
                "text/plain",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "application/xml",
                "text/json")) {
            assertOpenAiError(raw("POST", "/v1/chat/completions", type, body), 415, "unsupported_media_type");
        }
        assertQuotaUntouchedAndNothingProxied();
        // What OpenAI SDKs and HTTP clients send: plain, with a charset, in capitals.
        for (String type :
                List.of("application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8")) {
            assertThat(raw("POST", "/v1/chat/completions", type, body).status())
                    .as(type)
                    .isEqualTo(200);
        }
    }

    // --- limits

    /**
     * Issue 12's report, from outside: a window in use, then max_tokens 2^63-1. It used to be
     * admitted (the sum wrapped) and to erase the minute's charges.
     */
    @Test
    void anOverflowingMaxTokensIsA400NamingTheFieldAndErasesNothing() throws IOException {
        assertThat(chat("9000").status()).isEqualTo(200);
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(minute().usedTokens()).isEqualTo(9010));
        WindowUsage before = minute();
        for (String huge : List.of(Long.toString(Long.MAX_VALUE), "9223372036854775808", "18446744073709551615")) {
            Answer a = chat(huge);
            assertThat(a.status()).as(a.body()).isEqualTo(400);
            assertThat(a.body())
                    .startsWith("{\"error\":{\"message\":\"Invalid 'max_tokens': integer above maximum value.")
                    .contains("\"type\":\"invalid_request_error\"")
                    .contains("\"param\":\"max_tokens\"");
            assertThat(a.header("Retry-After")).isNull();
        }
        Answer tooLarge = chat("2147483647");
        assertOpenAiError(tooLarge, 400, "request_too_large");
        assertThat(tooLarge.header("Retry-After")).isNull();
        assertThat(minute().usedTokens()).isEqualTo(before.usedTokens());
        assertThat(minute().usedRequests()).isEqualTo(before.usedRequests());
        assertThat(chat("9000").status()).as("the 9,010 tokens still count").isEqualTo(429);
    }

    @Test
    void aRequestLargerThanTheProviderAdmitsInAMinuteIsA400AtOnce() throws IOException {
        TestTenants.Created big = TestTenants.create(tenants, "surface-ent", "enterprise");
        key = big.key();
        // enterprise admits 2,000,000 a minute; the provider 300,000 × 0.97
        Answer a = chat("500000");
        assertOpenAiError(a, 400, "request_too_large");
        assertThat(a.header("Retry-After")).isNull();
        assertThat(a.body()).contains("provider admits at most 291000 tokens per minute");
        WindowUsage minute = limiter.peek(
                        big.id(), config.current().tier("enterprise").orElseThrow())
                .block()
                .get(0);
        assertThat(minute.usedTokens()).isZero();
        assertThat(minute.usedRequests()).isZero();
        assertThat(UPSTREAM.requests()).isEmpty();
    }

    @Test
    void maxWaitZeroOnAnIdleProviderIsServed() throws IOException {
        Answer a = chat("100", "X-Sluice-Max-Wait: 0");
        assertThat(a.status()).as(a.body()).isEqualTo(200);
    }

    @Test
    void aFailureOnOurSideAfterTheChargeSpendsNoQuota() throws IOException {
        Answer a = chat("100", "X-Test-Fail: yes");
        assertOpenAiError(a, 500, "internal_error");
        assertThat(a.body()).contains("it was not charged");
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(minute().usedRequests()).isZero();
            assertThat(minute().usedTokens()).isZero();
        });
    }
}
