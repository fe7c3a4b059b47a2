package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.lab.provider.LabProviderServer;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The tenant quota from outside, through the lab provider (which writes min(max_tokens, 500)
 * tokens): headers on every answer, 429 with the moment the request fits, 400 for a request
 * no window could ever admit, and the charge corrected to the real usage afterwards.
 */
@GatewayTest(properties = "sluice.lab.completion-tokens=500")
class QuotaGatewayTest {
    static final long T0 = 1_900_000_000_000L;
    static final FakeClock CLOCK = new FakeClock(T0);

    @TestConfiguration
    static class Clocks {
        @Bean
        @Primary
        QuotaClock fakeClock() {
            return new QuotaClock(CLOCK);
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

    @Autowired
    LabProviderServer lab;

    String tenantId;
    String key;

    @BeforeEach
    void newFreeTenant() {
        CLOCK.set(T0);
        TestTenants.Created t = TestTenants.create(tenants, "q", "free");
        tenantId = t.id();
        key = t.key();
    }

    ResponseEntity<String> chat(int maxTokens, boolean stream, String extra) {
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + maxTokens + (stream ? ",\"stream\":true" : "")
                + extra + ",\"messages\":[{\"role\":\"user\",\"content\":\"Extract the text of page 7\"}]}";
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(10));
    }

    Tier free() {
        return config.current().tier("free").orElseThrow();
    }

    WindowUsage minute() {
        return limiter.peek(tenantId, free()).block().get(0);
    }

    static long usageTotal(String json) {
        Matcher m = Pattern.compile("\"total_tokens\":(\\d+)").matcher(json);
        assertThat(m.find()).as("usage in %s", json).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void everyAnswerCarriesOpenAiAndIetfRateLimitHeaders() {
        ResponseEntity<String> r = chat(100, false, "");
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        var h = r.getHeaders();
        assertThat(h.getFirst("x-ratelimit-limit-tokens")).isEqualTo("10000");
        assertThat(h.getFirst("x-ratelimit-limit-requests")).isEqualTo("60");
        assertThat(Long.parseLong(h.getFirst("x-ratelimit-remaining-tokens"))).isBetween(9_850L, 9_900L);
        assertThat(h.getFirst("x-ratelimit-remaining-requests")).isEqualTo("59");
        assertThat(h.getFirst("x-ratelimit-reset-tokens")).isEqualTo("1m1s");
        assertThat(h.getFirst("RateLimit-Policy"))
                .contains("\"minute-tokens\";q=10000;w=60;qu=\"tokens\"")
                .contains("\"minute-requests\";q=60;w=60;qu=\"requests\"")
                .contains("\"hour-tokens\";q=600000;w=3600")
                .contains("\"day-tokens\";q=2000000;w=86400");
        assertThat(h.getFirst("RateLimit")).contains("\"minute-requests\";r=59;t=61");
        assertThat(h.getFirst("X-Sluice-Tier")).isEqualTo("free");
    }

    @Test
    void theChargeIsCorrectedToTheUsageTheProviderReported() {
        ResponseEntity<String> r = chat(3_000, false, "");
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        long actual = usageTotal(r.getBody());
        assertThat(actual).isLessThan(600); // the lab wrote 500, not 3000
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(minute().usedTokens()).isEqualTo(actual));
        assertThat(minute().usedRequests()).isEqualTo(1);
    }

    @Test
    void aStreamIsReconciledAndTheClientDoesNotSeeTheUsageChunkItDidNotAskFor() {
        long billedBefore = lab.stats().tokensBilled();
        ResponseEntity<String> r = chat(3_000, true, "");
        assertThat(r.getStatusCode().value()).isEqualTo(200);
        assertThat(r.getBody()).contains("[DONE]").doesNotContain("\"usage\":{");
        long billed = lab.stats().tokensBilled() - billedBefore;
        // settled just after the last byte went out
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(minute().usedTokens()).isEqualTo(billed));
    }

    @Test
    void aClientThatAsksForUsageOnAStreamGetsIt() {
        ResponseEntity<String> r = chat(100, true, ",\"stream_options\":{\"include_usage\":true}");
        assertThat(r.getBody()).contains("\"usage\"").contains("[DONE]");
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(minute().usedTokens()).isEqualTo(usageTotal(r.getBody())));
    }

    @Test
    void aRequestThatDoesNotFitGets429WithTheMomentItsTokensFit() {
        // 450 output + ~12 prompt, all of it written by the lab: 21 fit in 10 000.
        int admitted = 0;
        ResponseEntity<String> refused = null;
        for (int i = 0; i < 30 && refused == null; i++) {
            CLOCK.set(T0 + i * 500L);
            ResponseEntity<String> r = chat(450, false, "");
            if (r.getStatusCode().value() == 200) admitted++;
            else refused = r;
        }
        assertThat(admitted).isEqualTo(21);
        assertThat(refused.getStatusCode().value()).isEqualTo(429);
        assertThat(refused.getBody())
                .contains("\"code\":\"rate_limit_exceeded\"")
                .contains("tier 'free'");
        // Refused at T0 + 10.5 s. Room for one more request appears when the first slots leave
        // the window, at T0 + 61 s (two requests were charged in the slot [0 s, 1 s)).
        assertThat(refused.getHeaders().getFirst("retry-after-ms")).isEqualTo("50500");
        assertThat(refused.getHeaders().getFirst("Retry-After")).isEqualTo("51");
        assertThat(refused.getHeaders().getFirst("x-ratelimit-remaining-tokens"))
                .isNotNull();

        CLOCK.set(T0 + 10_500 + 50_499);
        assertThat(chat(450, false, "").getStatusCode().value()).isEqualTo(429);
        CLOCK.set(T0 + 10_500 + 50_500);
        assertThat(chat(450, false, "").getStatusCode().value()).isEqualTo(200);
    }

    @Test
    void aRequestNoWindowCouldEverAdmitGetsAClearErrorNotARetryAfter() {
        ResponseEntity<String> r = chat(20_000, false, "");
        assertThat(r.getStatusCode().value()).isEqualTo(400);
        assertThat(r.getHeaders().getFirst("Retry-After")).isNull();
        assertThat(r.getBody()).contains("\"code\":\"request_too_large\"").contains("can never be served");
        assertThat(minute().usedTokens()).isZero();
    }

    @Test
    void malformedJsonIs400AndChargesNothing() {
        String body = "{\"model\":\"gpt-4o\",\"messages\":[";
        ResponseEntity<String> r = WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(x -> x.toEntity(String.class))
                .block(Duration.ofSeconds(10));
        assertThat(r.getStatusCode().value()).isEqualTo(400);
        assertThat(r.getBody()).contains("\"type\":\"invalid_request_error\"");
        assertThat(minute().usedRequests()).isZero();
    }

    @Test
    void windowsAreReportedInOrder() {
        chat(10, false, "");
        List<WindowUsage> windows = limiter.peek(tenantId, free()).block();
        assertThat(windows).extracting(WindowUsage::name).containsExactly("minute", "hour", "day");
    }
}
