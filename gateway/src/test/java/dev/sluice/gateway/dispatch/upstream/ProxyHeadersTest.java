package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * Header hygiene both ways, over real HTTP to a provider that records what it gets and answers
 * with every header a real one (and the CDN in front of it) sends.
 */
@GatewayTest(properties = {"SLUICE_PROVIDER_API_KEY=sk-provider-secret", "sluice.demo.tenants=true"})
class ProxyHeadersTest {
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> res.header(
                    "content-type", "application/json")
            .header("set-cookie", "__cf_bm=provider-session; path=/; HttpOnly")
            .header("server", "cloudflare")
            .header("openai-organization", "org-our-account")
            .header("openai-project", "proj_internal")
            .header("cf-ray", "8f0c-AMS")
            .header("strict-transport-security", "max-age=31536000")
            .header("x-envoy-upstream-service-time", "310")
            .header("x-sluice-tier", "enterprise")
            .header("x-request-id", "req_abc123")
            .header("openai-processing-ms", "287")
            .header("x-ratelimit-remaining-tokens", "987654321")
            .header("x-ratelimit-remaining-tokens-day", "5")
            .sendString(Mono.just(
                    "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}")));

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    ResponseEntity<String> call() {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .header("x-api-key", "sk-sluice-demo-pro")
                .header("X-Sluice-Priority", "batch")
                .header("X-Sluice-Max-Wait", "5000")
                .header("X-Sluice-Internal", "anything")
                .header("Cookie", "session=tenant-session")
                .header("Forwarded", "for=203.0.113.9")
                .header("X-Forwarded-For", "203.0.113.9")
                .header("X-Real-IP", "203.0.113.9")
                .header("Proxy-Authorization", "Basic dGVuYW50OnNlY3JldA==")
                .header("TE", "trailers")
                .header("Upgrade", "h2c")
                .header("OpenAI-Organization", "org-tenant-picks")
                .header("OpenAI-Project", "proj_tenant")
                .header("OpenAI-Beta", "assistants=v2")
                .header("Idempotency-Key", "idem-1")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .retrieve()
                .toEntity(String.class)
                .block(Duration.ofSeconds(10));
    }

    @Test
    void theProviderSeesOnlyWhatItNeedsWithItsOwnKey() throws Exception {
        UPSTREAM.requests().clear();
        assertThat(call().getStatusCode().value()).isEqualTo(200);
        FakeUpstream.Recorded seen = UPSTREAM.requests().poll(5, TimeUnit.SECONDS);
        io.netty.handler.codec.http.HttpHeaders h = seen.headers();
        assertThat(h.get("Authorization")).isEqualTo("Bearer sk-provider-secret");
        assertThat(h.get("Content-Type")).startsWith("application/json");
        assertThat(h.get("OpenAI-Beta")).isEqualTo("assistants=v2");
        assertThat(h.get("Idempotency-Key")).isEqualTo("idem-1");
        for (String never : new String[] {
            "x-api-key",
            "X-Sluice-Priority",
            "X-Sluice-Max-Wait",
            "X-Sluice-Internal",
            "Cookie",
            "Forwarded",
            "X-Forwarded-For",
            "X-Forwarded-Proto",
            "X-Forwarded-Host",
            "X-Forwarded-Port",
            "X-Real-IP",
            "Proxy-Authorization",
            "TE",
            "Upgrade",
            "OpenAI-Organization",
            "OpenAI-Project"
        }) {
            assertThat(h.contains(never)).as(never).isFalse();
        }
        assertThat(h.toString())
                .doesNotContain("sk-sluice-demo-pro")
                .doesNotContain("tenant-session")
                .doesNotContain("203.0.113.9");
    }

    @Test
    void theTenantSeesTheUsefulHeadersAndNoneOfTheProvidersInternalOnes() {
        HttpHeaders h = call().getHeaders();
        assertThat(h.getFirst("x-request-id")).isEqualTo("req_abc123");
        assertThat(h.getFirst("openai-processing-ms")).isEqualTo("287");
        assertThat(h.getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        assertThat(h.get("X-Sluice-Tier")).containsExactly("pro"); // ours, not the provider's
        // The provider's room on our account is not this tenant's: the tenant's own window is shown.
        assertThat(h.get("x-ratelimit-remaining-tokens")).hasSize(1).doesNotContain("987654321");
        assertThat(h.getFirst("x-ratelimit-limit-tokens")).isEqualTo("150000"); // pro: 100,000 × burst 1.5
        for (String never : new String[] {
            "set-cookie",
            "server",
            "openai-organization",
            "openai-project",
            "cf-ray",
            "strict-transport-security",
            "x-envoy-upstream-service-time",
            "x-ratelimit-remaining-tokens-day"
        }) {
            assertThat(h.containsHeader(never)).as(never).isFalse();
        }
    }

    @Test
    void noMetricShowsTheUpstreamsAddress() {
        call();
        String upstream = UPSTREAM.baseUrl().replaceAll("^http://([^/]+)/.*$", "$1");
        String prometheus = WebClient.create("http://127.0.0.1:" + port)
                .get()
                .uri("/actuator/prometheus")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        assertThat(prometheus).contains("llm-provider").doesNotContain(upstream);
    }
}
