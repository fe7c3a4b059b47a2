package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * What the admin UI needs from the gateway: its files at /admin/ (public, index.html for every
 * page path, hashed assets cached for good), the overview and the tenants' usage in one call.
 * Same properties as {@link AdminApiTest}, so they share one application context.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=correct horse battery",
            "sluice.abuse.sampler.enabled=false"
        })
class AdminUiTest {
    @Autowired
    WebTestClient web;

    @Autowired
    UsageHistory history;

    @Autowired
    OverviewHandler overview;

    WebTestClient admin() {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth(AdminApiTest.USER, AdminApiTest.PASSWORD))
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    int chat(String key) {
        return web.post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(AdminApiTest.CHAT)
                .exchange()
                .returnResult(String.class)
                .getStatus()
                .value();
    }

    // ---- the app's files -------------------------------------------------------------------

    @Test
    void theAppIsServedAtAdminWithoutLoginAndEveryPagePathGetsIndexHtml() {
        web.get()
                .uri("/admin")
                .exchange()
                .expectStatus()
                .isPermanentRedirect()
                .expectHeader()
                .location("/admin/");
        String index = web.get()
                .uri("/admin/")
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader()
                .valueMatches(HttpHeaders.CACHE_CONTROL, "no-cache")
                .expectHeader()
                .valueMatches("Content-Security-Policy", ".*default-src 'self'.*frame-ancestors 'none'.*")
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(index).contains("<div id=\"root\">").contains("/admin/assets/");
        for (String page :
                List.of("/admin/tiers", "/admin/tenants", "/admin/flags", "/admin/lab", "/admin/no-such-page")) {
            web.get()
                    .uri(page)
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .isEqualTo(index);
        }
    }

    @Test
    void hashedAssetsAreCachedForGoodAndUnknownFilesAre404() {
        String index = web.get()
                .uri("/admin/")
                .exchange()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        Matcher js =
                Pattern.compile("/admin/assets/(index-[A-Za-z0-9_-]+\\.js)").matcher(index);
        assertThat(js.find()).as("index.html names its script").isTrue();
        web.get()
                .uri("/admin/assets/" + js.group(1))
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.parseMediaType("text/javascript"))
                .expectHeader()
                .valueMatches(HttpHeaders.CACHE_CONTROL, ".*max-age=31536000.*immutable.*");
        web.head()
                .uri("/admin/assets/" + js.group(1))
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .valueMatches(HttpHeaders.CACHE_CONTROL, ".*immutable.*");
        web.get().uri("/admin/assets/nothing.js").exchange().expectStatus().isNotFound();
        web.get()
                .uri("/admin/assets/..%2Fapplication.yml")
                .exchange()
                .expectStatus()
                .value(s -> assertThat(s).isIn(400, 404));
        web.get().uri("/admin/favicon.ico").exchange().expectStatus().isNotFound();
    }

    @Test
    void theApiStaysBehindItsLoginWithoutABrowserDialogForTheApp() {
        web.get()
                .uri("/admin/api/overview")
                .header("X-Requested-With", "XMLHttpRequest")
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectHeader()
                .doesNotExist(HttpHeaders.WWW_AUTHENTICATE);
        web.get()
                .uri("/admin/api/usage")
                .header(HttpHeaders.AUTHORIZATION, "Bearer sk-sluice-demo-pro")
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectBody()
                .jsonPath("$.error.message")
                .value(m -> assertThat((String) m).contains("Tenant API keys"));
        // Without the lab module there is no lab API (the console hides its Lab page on this answer).
        admin().get()
                .uri("/admin/api/lab/runs/latest")
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unknown_endpoint");
    }

    // ---- overview ------------------------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void theOverviewCountsDecisionsPerStageSpendAndTheProviderBudget() {
        overview.record(); // the last minute's baseline: what follows is in its change
        assertThat(chat("sk-sluice-demo-pro")).isEqualTo(200);
        Map<String, Object> o = admin().get()
                .uri("/admin/api/overview")
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .valueMatches(HttpHeaders.CACHE_CONTROL, "no-store")
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        Map<String, Object> decisions = (Map<String, Object>) o.get("decisions");
        Map<String, Number> last = (Map<String, Number>) decisions.get("lastMinute");
        assertThat(last.keySet()).contains("passed", "delayed", "downgraded", "rejected", "busy");
        assertThat(last.get("passed").longValue()).isGreaterThanOrEqualTo(1);
        Map<String, Number> since = (Map<String, Number>) decisions.get("sinceStart");
        assertThat(since.get("passed").longValue())
                .isGreaterThanOrEqualTo(last.get("passed").longValue());
        assertThat(((Number) o.get("windowSeconds")).intValue()).isEqualTo(60);

        List<Map<String, Object>> budgets = (List<Map<String, Object>>) o.get("budgets");
        Map<String, Object> b = budgets.stream()
                .filter(x -> x.get("budget").equals("default:*"))
                .findFirst()
                .orElseThrow();
        assertThat(((Number) b.get("maxInFlight")).intValue()).isEqualTo(194); // 200 × headroom 0.97
        assertThat(((Number) b.get("concurrencyLimit")).intValue()).isBetween(1, 194);
        assertThat(((Number) b.get("pricePerMillionTokens")).doubleValue()).isEqualTo(3.0);
        assertThat(((Map<String, Number>) b.get("utilisation")).get("tokens").doubleValue())
                .isGreaterThan(0);
        assertThat(((Map<String, Object>) o.get("queueWaitP95Ms")).get("sinceStart"))
                .isNotNull();

        Map<String, Object> spend = (Map<String, Object>) o.get("spend");
        assertThat(((Number) spend.get("usdLastMinute")).doubleValue()).isGreaterThan(0);
        assertThat(((Number) spend.get("tokensLastMinute")).longValue()).isGreaterThan(0);
        // The lab provider answers 200 tokens: the spend is billed tokens × $3 per million.
        assertThat(((Number) spend.get("usdLastMinute")).doubleValue())
                .isCloseTo(((Number) spend.get("tokensLastMinute")).longValue() * 3.0 / 1e6, offset(1e-5));
        assertThat((String) spend.get("priceSource")).contains("default:* $3.00");
        assertThat(((Map<String, Map<String, Number>>) o.get("upstream"))
                        .get("lastMinute")
                        .get("200")
                        .longValue())
                .isGreaterThanOrEqualTo(1);
    }

    // ---- every tenant's usage at once ----------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void theUsageOfEveryTenantComesInOneCompactAnswer() {
        String id = "bulk-" + AdminApiTest.IDS.incrementAndGet();
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", id, "tier", "free"))
                .exchange()
                .expectStatus()
                .isCreated();
        long now = ActivityBuffer.minuteOf(System.currentTimeMillis());
        history.append(
                        id,
                        new UsageSample(
                                now - 2 * 60_000L, "free", 9_500, 10, 0.95, "minute", Map.of("passed", 10L), null),
                        1440)
                .block();
        history.append(
                        id,
                        new UsageSample(
                                now - 90 * 60_000L, "free", 1_000, 1, 0.1, "minute", Map.of("passed", 1L), null),
                        1440)
                .block();

        Map<String, Object> body = admin().get()
                .uri("/admin/api/usage?hours=1")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        assertThat(body).containsEntry("hours", 1).containsEntry("threshold", 0.9);
        List<Map<String, Object>> tenants = (List<Map<String, Object>>) body.get("tenants");
        assertThat(tenants).extracting(t -> t.get("tenant")).contains(id, "demo-free", "demo-pro");
        Map<String, Object> mine = tenants.stream()
                .filter(t -> t.get("tenant").equals(id))
                .findFirst()
                .orElseThrow();
        assertThat(mine).containsEntry("tier", "free");
        // One point inside the hour (the one 90 minutes ago is outside): [minute from `from`, utilisation, tokens].
        assertThat((List<List<Number>>) mine.get("points")).hasSize(1);
        List<Number> p = ((List<List<Number>>) mine.get("points")).get(0);
        assertThat(p.get(0).intValue()).isEqualTo(58);
        assertThat(p.get(1).doubleValue()).isEqualTo(0.95);
        assertThat(p.get(2).longValue()).isEqualTo(9_500);

        admin().get()
                .uri("/admin/api/usage?hours=0")
                .exchange()
                .expectStatus()
                .isEqualTo(422)
                .expectBody()
                .jsonPath("$.error.fields[0].field")
                .isEqualTo("hours");
        admin().get().uri("/admin/api/usage?hours=25").exchange().expectStatus().isEqualTo(422);
    }
}
