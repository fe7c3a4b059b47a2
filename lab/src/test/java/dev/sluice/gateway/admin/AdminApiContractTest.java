package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.Ceiling;
import dev.sluice.gateway.abuse.CeilingDetector;
import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.testsupport.TestRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin API's document ({@code admin/openapi.yaml}) held against the real thing: a booted
 * gateway on Redis with its lab, called over HTTP. Every documented operation is called on its
 * happy path and on at least one documented error, and each status and body is validated
 * against the document by a maintained validator (Atlassian's openapi-request-validator); and
 * every route the admin router serves must be in the document. Operations tagged {@code lab}
 * are served by the lab module, which is why this test lives in it.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=contract-pw",
            "sluice.abuse.sampler.enabled=false",
            "spring.data.redis.database=" + AdminApiContractTest.DATABASE,
            LabRunsApiTest.SMALL_RUNS
        })
@AutoConfigureWebTestClient
class AdminApiContractTest {
    /** Its own Redis database: this test replaces the tiers document, which other gateways on the server must not see. */
    static final int DATABASE = 13;

    static final String BASE = "/admin/api";
    static final JsonMapper JSON = JsonMapper.shared();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", TestRedis::host);
        registry.add("spring.data.redis.port", TestRedis::port);
    }

    @Autowired
    WebTestClient web;

    @Autowired
    FlagStore flags;

    @Autowired
    UsageHistory history;

    @Autowired
    @Qualifier("adminApiRoutes")
    RouterFunction<?> adminRoutes;

    /** method + path template -> statuses seen and validated. */
    final Map<String, Set<Integer>> seen = new LinkedHashMap<>();

    final List<String> problems = new ArrayList<>();
    final OpenApiInteractionValidator validator = OpenApiInteractionValidator.createForInlineApiSpecification(
                    document())
            .build();

    static String document() {
        return OpenApiDocument.document();
    }

    @Test
    void everyDocumentedOperationAnswersAsDocumented() {
        boolean lab = labPresent();
        tiers();
        tiersDraft();
        String tenant = tenants();
        usage(tenant);
        flags(tenant);
        misc();
        if (lab) lab();

        List<String> uncovered = new ArrayList<>();
        for (OpenApiDocument.Operation op : OpenApiDocument.operations(document())) {
            if (op.tags().contains("lab") && !lab) continue;
            Set<Integer> statuses = seen.getOrDefault(op.key(), Set.of());
            if (statuses.stream().noneMatch(s -> s < 300)) uncovered.add(op.key() + " has no happy path called");
            if (statuses.stream().noneMatch(s -> s >= 400)) uncovered.add(op.key() + " has no documented error called");
        }
        assertThat(problems)
                .as("responses that disagree with admin/openapi.yaml")
                .isEmpty();
        assertThat(uncovered)
                .as("documented operations this test did not exercise")
                .isEmpty();
    }

    @Test
    void everyAdminRouteIsDocumented() {
        Set<String> documented = new TreeSet<>();
        for (OpenApiDocument.Operation op : OpenApiDocument.operations(document())) documented.add(op.key());
        Set<String> served = new TreeSet<>(AdminRouteList.of(adminRoutes));
        assertThat(served)
                .as("the admin router serves routes (it is walked, so a new route counts)")
                .contains("GET /tenants");
        assertThat(served)
                .as("admin routes that admin/openapi.yaml does not describe")
                .isSubsetOf(documented);
        // And the other way: every documented operation is served (lab ones only where the lab is).
        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(served);
        if (!labPresent()) missing.removeIf(k -> k.contains(" /lab/"));
        assertThat(missing)
                .as("documented operations that the admin router does not serve")
                .isEmpty();
    }

    // ---- the operations ------------------------------------------------------------------

    void tiers() {
        var current = call("GET", "/tiers", null, null, Map.of());
        String etag = current.getResponseHeaders().getETag();
        String yaml = (String) map(current).get("yaml");
        call("GET", "/tiers", null, null, Map.of(), Auth.NONE);
        call("POST", "/tiers/validate", "application/yaml", yaml, Map.of());
        call("POST", "/tiers/validate", "application/json", json(Map.of("yaml", yaml)), Map.of());
        call("POST", "/tiers/validate", "application/yaml", "tiers:\n  free:\n    tokens-per-minute: -1\n", Map.of());
        call("POST", "/tiers/validate", "text/plain", yaml, Map.of());
        call("PUT", "/tiers", "application/yaml", yaml, Map.of()); // 428: no If-Match
        call("PUT", "/tiers", "application/yaml", yaml, Map.of(HttpHeaders.IF_MATCH, "\"stale\""));
        call("PUT", "/tiers", "application/yaml", "tiers: [", Map.of(HttpHeaders.IF_MATCH, etag));
        call(
                "PUT",
                "/tiers",
                "application/yaml",
                yaml,
                Map.of(HttpHeaders.IF_MATCH, etag)); // same content: a new version, nothing else
    }

    /** The tiers draft (issue 28): each operation's happy path and its refusals. */
    void tiersDraft() {
        String yaml = (String) map(call("GET", "/tiers", null, null, Map.of())).get("yaml");
        call("DELETE", "/tiers/draft", null, null, Map.of()); // a draft left by an earlier run: 204, else 404
        call("GET", "/tiers/draft", null, null, Map.of()); // 404
        call("GET", "/tiers/draft/whatif", null, null, Map.of()); // 404
        call("POST", "/tiers/draft/shadow", "application/json", "{\"on\":true}", Map.of()); // 409
        call("PUT", "/tiers/draft", "application/yaml", yaml, Map.of());
        call("PUT", "/tiers/draft", "application/yaml", "tiers: [", Map.of()); // 422
        call(
                "PUT",
                "/tiers/draft",
                "application/json",
                json(Map.of("yaml", yaml)),
                Map.of(HttpHeaders.IF_MATCH, "\"stale\""));
        call("PUT", "/tiers/draft", "text/plain", yaml, Map.of()); // 415
        call("GET", "/tiers/draft", null, null, Map.of());
        call("POST", "/tiers/draft/shadow", "application/json", "{}", Map.of()); // 422
        call("POST", "/tiers/draft/shadow", "application/json", "{\"on\":", Map.of()); // 400
        call("POST", "/tiers/draft/shadow", "text/plain", "on", Map.of()); // 415
        call("POST", "/tiers/draft/shadow", "application/json", "{\"on\":true}", Map.of());
        call("GET", "/tiers/draft/whatif", null, null, Map.of());
        call("GET", "/tiers/draft/whatif?minutes=0", null, null, Map.of()); // 422
        call("POST", "/tiers/draft/promote", null, null, Map.of()); // 428
        call("POST", "/tiers/draft/promote", null, null, Map.of(HttpHeaders.IF_MATCH, "\"stale\"")); // 412
        String etag =
                call("GET", "/tiers", null, null, Map.of()).getResponseHeaders().getETag();
        call(
                "POST",
                "/tiers/draft/promote",
                null,
                null,
                Map.of(HttpHeaders.IF_MATCH, etag)); // same text: a new version
        call("POST", "/tiers/draft/promote", null, null, Map.of(HttpHeaders.IF_MATCH, "*")); // 409: promoted, gone
        call("PUT", "/tiers/draft", "application/yaml", yaml, Map.of());
        var draft = call("GET", "/tiers/draft", null, null, Map.of());
        call("DELETE", "/tiers/draft", null, null, Map.of(HttpHeaders.IF_MATCH, "\"stale\"")); // 412
        call(
                "DELETE",
                "/tiers/draft",
                null,
                null,
                Map.of(HttpHeaders.IF_MATCH, draft.getResponseHeaders().getETag()));
    }

    String tenants() {
        String id = "contract-" + System.nanoTime();
        call("GET", "/tenants", null, null, Map.of());
        call("GET", "/tenants", null, null, Map.of(), Auth.NONE);
        call("POST", "/tenants", "application/json", json(Map.of("id", id, "tier", "free")), Map.of());
        call("POST", "/tenants", "application/json", json(Map.of("id", id, "tier", "free")), Map.of()); // 409
        call(
                "POST",
                "/tenants",
                "application/json",
                json(Map.of("id", "x" + id, "tier", "no-such-tier")),
                Map.of()); // 422
        call("POST", "/tenants", "application/json", "{not json", Map.of()); // 400
        call("POST", "/tenants", "text/plain", "id=x", Map.of()); // 415
        call("GET", "/tenants/{id}", null, null, Map.of(), id);
        call("GET", "/tenants/{id}", null, null, Map.of(), "nobody-" + id);
        call("PATCH", "/tenants/{id}", "application/json", json(Map.of("tier", "pro")), Map.of(), id);
        call("PATCH", "/tenants/{id}", "application/json", json(Map.of("tier", "no-such-tier")), Map.of(), id);
        call("PATCH", "/tenants/{id}", "application/json", json(Map.of("suspended", false)), Map.of(), "nobody-" + id);
        var issued = call("POST", "/tenants/{id}/keys", null, null, Map.of(), id);
        call("POST", "/tenants/{id}/keys", null, null, Map.of(), "nobody-" + id);
        call("GET", "/tenants/{id}/keys", null, null, Map.of(), id);
        call("GET", "/tenants/{id}/keys", null, null, Map.of(), "nobody-" + id);
        String keyId = (String) map(issued).get("id");
        call(
                "POST",
                "/tenants/{id}/keys",
                "application/json",
                json(Map.of("tokensPerMinute", 2000, "usdPerDay", 0.25, "expiresAt", "2099-01-31T00:00:00Z")),
                Map.of(),
                id);
        call("POST", "/tenants/{id}/keys", "application/json", json(Map.of("tokensPerMinute", -1)), Map.of(), id);
        call("POST", "/tenants/{id}/keys", "text/plain", "x", Map.of(), id); // 415
        call(
                "PATCH",
                "/tenants/{id}/keys/{keyId}",
                "application/json",
                json(Map.of("usdPerDay", 1)),
                Map.of(),
                id,
                keyId);
        call(
                "PATCH",
                "/tenants/{id}/keys/{keyId}",
                "application/json",
                json(Map.of("usdPerDay", -1)),
                Map.of(),
                id,
                keyId);
        call(
                "PATCH",
                "/tenants/{id}/keys/{keyId}",
                "application/json",
                json(Map.of("usdPerDay", 1)),
                Map.of(),
                id,
                "key_000000000000"); // 404
        organisations(id);
        call("DELETE", "/tenants/{id}/keys/{keyId}", null, null, Map.of(), id, keyId);
        call("DELETE", "/tenants/{id}/keys/{keyId}", null, null, Map.of(), id, keyId); // gone: 404
        return id;
    }

    void organisations(String tenant) {
        String org = "contract-org-" + System.nanoTime();
        call("GET", "/organisations", null, null, Map.of());
        call("GET", "/organisations", null, null, Map.of(), Auth.NONE);
        call(
                "POST",
                "/organisations",
                "application/json",
                json(Map.of(
                        "id",
                        org,
                        "windows",
                        List.of(Map.of("name", "minute", "seconds", 60, "tokens", 5000)),
                        "spend",
                        Map.of("usd-per-day", 1))),
                Map.of());
        call("POST", "/organisations", "application/json", json(Map.of("id", org)), Map.of()); // 409
        call("POST", "/organisations", "application/json", json(Map.of("id", "")), Map.of()); // 422
        call("POST", "/organisations", "application/json", "{not json", Map.of()); // 400
        call("POST", "/organisations", "text/plain", "id=x", Map.of()); // 415
        call("GET", "/organisations/{id}", null, null, Map.of(), org);
        call("GET", "/organisations/{id}", null, null, Map.of(), "nobody-" + org);
        call("PATCH", "/organisations/{id}", "application/json", json(Map.of("name", "Contract")), Map.of(), org);
        call("PATCH", "/organisations/{id}", "application/json", json(Map.of()), Map.of(), org); // 422
        call("PATCH", "/organisations/{id}", "application/json", json(Map.of("name", "x")), Map.of(), "nobody-" + org);
        call("GET", "/organisations/{id}/usage", null, null, Map.of(), org);
        call("GET", "/organisations/{id}/usage", null, null, Map.of(), "nobody-" + org);
        call("GET", "/organisations/{id}/spend?days=30", null, null, Map.of(), org);
        call("GET", "/organisations/{id}/spend?days=401", null, null, Map.of(), org); // 422
        call("GET", "/organisations/{id}/spend", null, null, Map.of(), "nobody-" + org);
        call("PATCH", "/tenants/{id}", "application/json", json(Map.of("organisation", org)), Map.of(), tenant);
        call("DELETE", "/organisations/{id}", null, null, Map.of(), org); // 409: a member
        call("PATCH", "/tenants/{id}", "application/json", "{\"organisation\":null}", Map.of(), tenant);
        call("DELETE", "/organisations/{id}", null, null, Map.of(), org);
        call("DELETE", "/organisations/{id}", null, null, Map.of(), org); // gone: 404
    }

    /** Minutes at the ceiling, with the signal's measures, so the series and the flag's evidence have every field. */
    static List<UsageSample> minutes(long from, int n) {
        Ceiling ceiling = new Ceiling("minute", 0.9, 0.97, 120, 400, 2, 0, Ceiling.REFUSED, 1.0);
        return IntStream.range(0, n)
                .mapToObj(i -> new UsageSample(
                        from + i * 60_000L,
                        "pro",
                        9_500,
                        10,
                        0.95,
                        "minute",
                        Map.of("passed", 10L, "rejected", 2L),
                        ceiling))
                .toList();
    }

    void usage(String tenant) {
        long from = ActivityBuffer.minuteOf(System.currentTimeMillis()) - 10 * 60_000L;
        for (UsageSample s : minutes(from, 3)) history.append(tenant, s, 1440).block(Duration.ofSeconds(5));
        assertThat((List<?>) map(call("GET", "/tenants/{id}/usage", null, null, Map.of(), tenant))
                        .get("points"))
                .as("the series has points to validate")
                .hasSize(3);
        call("GET", "/tenants/{id}/usage?hours=0", null, null, Map.of(), tenant);
        call("GET", "/tenants/{id}/usage", null, null, Map.of(), "nobody-" + tenant);
        call("GET", "/usage", null, null, Map.of());
        call("GET", "/usage?hours=0", null, null, Map.of());
        call("GET", "/tenants/{id}/spend", null, null, Map.of(), tenant);
        call("GET", "/tenants/{id}/spend?days=0", null, null, Map.of(), tenant);
        call("GET", "/tenants/{id}/spend", null, null, Map.of(), "nobody-" + tenant);
        call("GET", "/usage/export?month=2026-12", null, null, Map.of());
        call("GET", "/usage/export?from=2026-12-07&to=2026-12-06", null, null, Map.of());
    }

    void flags(String tenant) {
        long t = ActivityBuffer.minuteOf(System.currentTimeMillis()) - 20 * 60_000L;
        List<UsageSample> evidence = minutes(t, 15);
        Flag f = flags.openIfNone(Flag.open(
                        "flag_" + tenant,
                        tenant,
                        "pro",
                        Instant.now(),
                        new CeilingDetector.Finding(new CeilingDetector.Run(t, 15), evidence)))
                .block(Duration.ofSeconds(5));
        call("GET", "/flags", null, null, Map.of());
        call("GET", "/flags?status=maybe", null, null, Map.of());
        call("GET", "/flags/{id}", null, null, Map.of(), f.id());
        call("GET", "/flags/{id}", null, null, Map.of(), "flag_nope");
        call(
                "POST",
                "/flags/{id}/review",
                "application/json",
                json(Map.of("action", "dismiss")),
                Map.of(),
                f.id()); // 422: no note
        call(
                "POST",
                "/flags/{id}/review",
                "application/json",
                json(Map.of("action", "dismiss", "note", "agreed")),
                Map.of(),
                f.id());
        call(
                "POST",
                "/flags/{id}/review",
                "application/json",
                json(Map.of("action", "dismiss", "note", "again")),
                Map.of(),
                f.id()); // 409
        call(
                "POST",
                "/flags/{id}/review",
                "application/json",
                json(Map.of("action", "comment", "note", "x")),
                Map.of(),
                "flag_nope");
    }

    void misc() {
        call("GET", "/overview", null, null, Map.of());
        call("GET", "/overview", null, null, Map.of(), Auth.NONE);
        call("GET", "/audit", null, null, Map.of());
        call("GET", "/audit?limit=0", null, null, Map.of());
        call("GET", "/audit", null, null, Map.of(), Auth.NONE);
        call("GET", "/openapi.yaml", null, null, Map.of());
        call("GET", "/openapi.yaml", null, null, Map.of(), Auth.NONE);
    }

    void lab() {
        call("GET", "/lab/runs/latest", null, null, Map.of()); // none started yet: 404
        call("POST", "/lab/runs", "application/json", json(Map.of("cases", List.of("case9"))), Map.of());
        // One short case (no second gateway to boot): the API is under test here, not the lab.
        String small = json(Map.of("cases", List.of("case1"), "ramp", false));
        String id = (String) map(call("POST", "/lab/runs", "application/json", small, Map.of()))
                .get("id");
        call(
                "POST",
                "/lab/runs",
                "application/json",
                small,
                Map.of()); // 409 while it runs (were it over, one more short run)
        call("GET", "/lab/runs/{id}", null, null, Map.of(), "no-such-run");
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> !"running"
                        .equals(map(raw("GET", BASE + "/lab/runs/latest")).get("status")));
        call("GET", "/lab/runs/{id}", null, null, Map.of(), id); // the finished run, with its report
        call("GET", "/lab/runs/latest", null, null, Map.of());
    }

    // ---- calling and validating ----------------------------------------------------------

    enum Auth {
        ADMIN,
        NONE
    }

    /** Whether this gateway serves the lab's runs: the admin API's 404 for an unknown endpoint says not. */
    boolean labPresent() {
        var r = raw("GET", BASE + "/lab/runs/latest");
        return !(r.getStatus().value() == 404
                && "unknown_endpoint".equals(((Map<?, ?>) map(r).get("error")).get("code")));
    }

    EntityExchangeResult<byte[]> call(
            String method, String template, String type, String body, Map<String, String> headers, Object... vars) {
        return call(Auth.ADMIN, method, template, type, body, headers, vars);
    }

    EntityExchangeResult<byte[]> call(
            String method, String template, String type, String body, Map<String, String> headers, Auth auth) {
        return call(auth, method, template, type, body, headers);
    }

    EntityExchangeResult<byte[]> call(
            Auth auth,
            String method,
            String template,
            String type,
            String body,
            Map<String, String> headers,
            Object... vars) {
        String path = template;
        for (Object v : vars) path = path.replaceFirst("\\{[^}]+}", v.toString());
        WebTestClient client = auth == Auth.ADMIN
                ? web.mutate()
                        .defaultHeaders(h -> h.setBasicAuth("ops", "contract-pw"))
                        .responseTimeout(Duration.ofSeconds(20))
                        .build()
                : web.mutate()
                        .defaultHeader("X-Requested-With", "XMLHttpRequest")
                        .build();
        WebTestClient.RequestBodySpec spec =
                client.method(HttpMethod.valueOf(method)).uri(BASE + path);
        headers.forEach(spec::header);
        if (type != null) spec.header(HttpHeaders.CONTENT_TYPE, type);
        var result = (body == null
                        ? spec.exchange()
                        : spec.bodyValue(body.getBytes(StandardCharsets.UTF_8)).exchange())
                .expectBody(byte[].class)
                .returnResult();

        String pathOnly = (BASE + path).split("\\?", 2)[0];
        SimpleResponse.Builder response =
                SimpleResponse.Builder.status(result.getStatus().value());
        result.getResponseHeaders().forEach((k, v) -> response.withHeader(k, v));
        byte[] bytes = result.getResponseBody();
        if (bytes != null) response.withBody(new String(bytes, StandardCharsets.UTF_8));
        ValidationReport report =
                validator.validateResponse(pathOnly, Request.Method.valueOf(method), response.build());
        String what = method + " " + BASE + path + " -> " + result.getStatus().value();
        if (report.hasErrors()) problems.add(what + ": " + report.getMessages() + "\n  body: " + abbreviate(bytes));
        if (auth == Auth.ADMIN && result.getStatus().is2xxSuccessful())
            validateRequest(method, BASE + path, type, body, headers, what);
        seen.computeIfAbsent(method + " " + template.split("\\?", 2)[0], k -> new TreeSet<>())
                .add(result.getStatus().value());
        return result;
    }

    /** A request the gateway accepted must be one the document allows, or the document under-describes it. */
    void validateRequest(
            String method, String pathAndQuery, String type, String body, Map<String, String> headers, String what) {
        String[] parts = pathAndQuery.split("\\?", 2);
        SimpleRequest.Builder request = new SimpleRequest.Builder(method, parts[0]).withAuthorization("Basic x");
        if (parts.length > 1) {
            for (String kv : parts[1].split("&")) request.withQueryParam(kv.split("=", 2)[0], kv.split("=", 2)[1]);
        }
        headers.forEach(request::withHeader);
        if (type != null) request.withContentType(type);
        if (body != null) request.withBody(body);
        ValidationReport report = validator.validateRequest(request.build());
        if (report.hasErrors()) problems.add(what + " (request): " + report.getMessages());
    }

    EntityExchangeResult<byte[]> raw(String method, String path) {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth("ops", "contract-pw"))
                .build()
                .method(HttpMethod.valueOf(method))
                .uri(path)
                .exchange()
                .expectBody(byte[].class)
                .returnResult();
    }

    static String abbreviate(byte[] bytes) {
        String text = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
        return text.length() <= 600 ? text : text.substring(0, 600) + "…";
    }

    static Map<?, ?> map(EntityExchangeResult<byte[]> result) {
        return JSON.readValue(result.getResponseBody(), Map.class);
    }

    static String json(Object value) {
        return JSON.writeValueAsString(value);
    }
}
