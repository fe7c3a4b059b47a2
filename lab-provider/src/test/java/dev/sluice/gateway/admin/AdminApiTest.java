package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.CeilingDetector;
import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.testsupport.GatewayTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The admin API on a running gateway (memory store, lab provider, demo tenants): every
 * endpoint, its authentication, its validation errors, and its effect on the tenant path.
 */
@GatewayTest(
        properties = {
            "sluice.admin.user=ops",
            "sluice.admin.password=correct horse battery",
            "sluice.abuse.sampler.enabled=false"
        })
@ExtendWith(OutputCaptureExtension.class)
class AdminApiTest {
    static final String USER = "ops";
    static final String PASSWORD = "correct horse battery";
    static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    static final AtomicInteger IDS = new AtomicInteger();

    @Autowired
    WebTestClient web;

    @Autowired
    FlagStore flags;

    @Autowired
    UsageHistory history;

    WebTestClient admin() {
        return web.mutate()
                .defaultHeaders(h -> h.setBasicAuth(USER, PASSWORD))
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    int chat(String key) {
        return web.post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT)
                .exchange()
                .expectBody(String.class)
                .returnResult()
                .getStatus()
                .value();
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> json(WebTestClient.ResponseSpec spec) {
        return spec.expectBody(Map.class).returnResult().getResponseBody();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> error(Map<String, Object> body) {
        return (Map<String, Object>) body.get("error");
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> fields(Map<String, Object> body) {
        return (List<Map<String, Object>>) error(body).get("fields");
    }

    String newTenant(String tier) {
        String id = "acme-" + IDS.incrementAndGet();
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", id, "tier", tier))
                .exchange()
                .expectStatus()
                .isCreated();
        return id;
    }

    String issueKey(String tenant) {
        return (String) json(admin().post()
                        .uri("/admin/api/tenants/{id}/keys", tenant)
                        .exchange()
                        .expectStatus()
                        .isCreated())
                .get("key");
    }

    String etag() {
        return admin().get()
                .uri("/admin/api/tiers")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseHeaders()
                .getETag();
    }

    String currentYaml() {
        return (String) json(admin().get().uri("/admin/api/tiers").exchange()).get("yaml");
    }

    WebTestClient.ResponseSpec putTiers(String etag, String yaml) {
        WebTestClient.RequestBodySpec spec =
                admin().put().uri("/admin/api/tiers").contentType(AdminRequests.YAML);
        if (etag != null) spec.header(HttpHeaders.IF_MATCH, etag);
        return spec.bodyValue(yaml).exchange();
    }

    // ---- authentication ------------------------------------------------------------------

    @Test
    void withoutCredentialsTheApiAnswers401InJsonAndAsksForBasic() {
        var result = web.get()
                .uri("/admin/api/tenants")
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectHeader()
                .valueMatches(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"sluice-admin\".*")
                .expectBody(Map.class)
                .returnResult();
        assertThat(error(result.getResponseBody())).containsEntry("code", "unauthorized");
    }

    @Test
    void aScriptGetsNoBrowserLoginDialog() {
        web.get()
                .uri("/admin/api/tenants")
                .header("X-Requested-With", "XMLHttpRequest")
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectHeader()
                .doesNotExist(HttpHeaders.WWW_AUTHENTICATE);
    }

    @Test
    void wrongCredentialsGet401() {
        web.get()
                .uri("/admin/api/tenants")
                .headers(h -> h.setBasicAuth(USER, "wrong"))
                .exchange()
                .expectStatus()
                .isUnauthorized();
        web.get()
                .uri("/admin/api/tenants")
                .headers(h -> h.setBasicAuth("admin", PASSWORD))
                .exchange()
                .expectStatus()
                .isUnauthorized();
    }

    @Test
    void aTenantKeyGets401OnTheAdminApi() {
        var body = json(web.get()
                .uri("/admin/api/tenants")
                .header(HttpHeaders.AUTHORIZATION, "Bearer sk-sluice-demo-enterprise")
                .exchange()
                .expectStatus()
                .isUnauthorized());
        assertThat((String) error(body).get("message")).contains("Tenant API keys are not accepted here");
        web.get()
                .uri("/admin/api/tiers")
                .header("x-api-key", "sk-sluice-demo-enterprise")
                .exchange()
                .expectStatus()
                .isUnauthorized();
    }

    @Test
    void theAdminIsLetIn() {
        admin().get().uri("/admin/api/tenants").exchange().expectStatus().isOk();
    }

    @Test
    void tenantPathsAndOperationsStayOpenAndAdminCredentialsDoNothingThere() {
        assertThat(chat("sk-sluice-demo-pro")).isEqualTo(200);
        web.post()
                .uri("/v1/chat/completions")
                .headers(h -> h.setBasicAuth(USER, PASSWORD))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT)
                .exchange()
                .expectStatus()
                .isUnauthorized()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("invalid_api_key");
        web.get().uri("/actuator/health").exchange().expectStatus().isOk();
        web.get()
                .uri("/actuator/prometheus")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(p -> assertThat(p).doesNotContain("spring_security"));
        // Only health and prometheus are exposed (docs/security.md).
        web.get().uri("/actuator/metrics").exchange().expectStatus().isNotFound();
        web.get()
                .uri("/actuator/metrics/jvm.memory.used")
                .exchange()
                .expectStatus()
                .isNotFound();
        web.get().uri("/actuator/info").exchange().expectStatus().isNotFound();
        web.get().uri("/actuator/env").exchange().expectStatus().isNotFound();
    }

    @Test
    void theLabControlsNeedTheAdmin() {
        web.get().uri("/lab/provider/stats").exchange().expectStatus().isUnauthorized();
        web.post().uri("/lab/provider/reset").exchange().expectStatus().isUnauthorized();
        admin().get().uri("/lab/provider/stats").exchange().expectStatus().isOk();
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyChangeIsAuditedWithWhoWhenAndWhatButNeverAKey(CapturedOutput output) {
        String tenant = newTenant("free");
        admin().patch()
                .uri("/admin/api/tenants/{id}", tenant)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("suspended", true, "tier", "pro"))
                .exchange()
                .expectStatus()
                .isOk();
        Map<String, Object> issued = json(admin().post()
                .uri("/admin/api/tenants/{id}/keys", tenant)
                .exchange()
                .expectStatus()
                .isCreated());
        String secret = (String) issued.get("key");
        String keyId = (String) issued.get("id");
        admin().delete()
                .uri("/admin/api/tenants/{id}/keys/{key}", tenant, keyId)
                .exchange()
                .expectStatus()
                .isNoContent();
        String before = etag();
        String after = putTiers(before, currentYaml())
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseHeaders()
                .getETag();

        List<Map<String, Object>> entries = (List<Map<String, Object>>) json(admin().get()
                        .uri("/admin/api/audit?limit=5")
                        .exchange()
                        .expectStatus()
                        .isOk())
                .get("entries");
        assertThat(entries)
                .extracting(e -> e.get("action"))
                .containsExactly("tiers.replaced", "key.revoked", "key.issued", "tenant.changed", "tenant.created");
        assertThat(entries)
                .allSatisfy(e -> assertThat(e)
                        .containsEntry("actor", USER)
                        .containsEntry("address", "127.0.0.1")
                        .containsKeys("at", "target", "details"));
        assertThat(entries.get(0).get("details"))
                .isEqualTo(Map.of(
                        "fromVersion", Integer.parseInt(before.replaceAll("\"(\\d+)-.*", "$1")),
                        "toVersion", Integer.parseInt(after.replaceAll("\"(\\d+)-.*", "$1"))));
        assertThat(entries.get(1)).containsEntry("target", tenant).containsEntry("details", Map.of("keyId", keyId));
        assertThat(entries.get(3).get("details"))
                .isEqualTo(Map.of(
                        "tier", Map.of("from", "free", "to", "pro"), "suspended", Map.of("from", false, "to", true)));
        assertThat(entries.get(4))
                .containsEntry("target", tenant)
                .containsEntry("details", Map.of("tier", "free", "suspended", false));

        List<String> lines = output.getOut()
                .lines()
                .filter(l -> l.contains(AuditLog.LOGGER) && l.contains(tenant))
                .toList();
        assertThat(lines).hasSize(4).allSatisfy(l -> assertThat(l).contains("\"actor\":\"ops\""));
        assertThat(lines)
                .anySatisfy(
                        l -> assertThat(l).contains("\"action\":\"key.issued\"").contains(keyId));
        assertThat(output.getOut()).contains("\"action\":\"tiers.replaced\"");
        assertThat(output.getOut().lines().filter(l -> l.contains(AuditLog.LOGGER)))
                .noneMatch(l -> l.contains(secret));
    }

    @Test
    void theOpenApiDocumentIsServed() {
        admin().get()
                .uri("/admin/api/openapi.yaml")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(y -> assertThat(y)
                        .startsWith("openapi: 3")
                        .contains("/tenants/{id}/keys")
                        .contains("/overview")
                        .contains("/usage:"));
    }

    // ---- tiers ---------------------------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void theTiersDocumentComesAsYamlAndJsonWithItsEtag() throws Exception {
        EntityExchangeResult<Map> r = admin().get()
                .uri("/admin/api/tiers")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult();
        Map<String, Object> body = r.getResponseBody();
        assertThat(r.getResponseHeaders().getETag()).isEqualTo(body.get("etag"));
        assertThat((String) body.get("yaml")).contains("tiers:");
        assertThat(body.get("appliedHere")).isEqualTo(true);
        Map<String, Object> tiers = (Map<String, Object>) ((Map<String, Object>) body.get("config")).get("tiers");
        assertThat(tiers).containsKeys("free", "pro", "enterprise");
        Map<String, Object> enterprise = (Map<String, Object>) tiers.get("enterprise");
        assertThat(enterprise).containsEntry("tokens-per-minute", 1_000_000);
        assertThat((List<Object>) enterprise.get("windows")).hasSize(1); // the implicit hour window, made explicit
    }

    @Test
    void aValidDocumentValidatesWithASummary() throws Exception {
        String yaml = Files.readString(Path.of("../tiers.yaml"));
        admin().post()
                .uri("/admin/api/tiers/validate")
                .contentType(AdminRequests.YAML)
                .bodyValue(yaml)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.valid")
                .isEqualTo(true)
                .jsonPath("$.summary.tiers.length()")
                .isEqualTo(3)
                .jsonPath("$.config.tiers.pro.burst-allowance")
                .isEqualTo(1.5);
        // the same as JSON {"yaml": ...}
        admin().post()
                .uri("/admin/api/tiers/validate")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("yaml", yaml))
                .exchange()
                .expectStatus()
                .isOk();
    }

    @Test
    void anInvalidDocumentIs422WithEveryFieldAndLine() {
        String yaml = """
                tiers:
                  free:
                    tokens-per-minute: ten
                    requests-per-minute: 60
                    priority: 3
                    burst-alowance: 2
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 10, tokens-per-minute: 10, max-in-flight: 1}
                """;
        var body = json(admin().post()
                .uri("/admin/api/tiers/validate")
                .contentType(AdminRequests.YAML)
                .bodyValue(yaml)
                .exchange()
                .expectStatus()
                .isEqualTo(422));
        assertThat(error(body)).containsEntry("code", "validation_failed");
        assertThat(fields(body)).anySatisfy(f -> {
            assertThat(f).containsEntry("field", "tiers.free.tokens-per-minute").containsEntry("line", 3);
            assertThat((String) f.get("message")).contains("'ten'");
        });
        assertThat(fields(body))
                .anySatisfy(f -> assertThat(f)
                        .containsEntry("field", "tiers.free.burst-alowance")
                        .containsEntry("line", 6));
        var syntax = json(admin().post()
                .uri("/admin/api/tiers/validate")
                .contentType(AdminRequests.YAML)
                .bodyValue("tiers:\n  free: [\n")
                .exchange()
                .expectStatus()
                .isEqualTo(422));
        assertThat(fields(syntax)).singleElement().satisfies(f -> assertThat(f).containsKey("line"));
    }

    @Test
    void aPutNeedsIfMatchAndAStaleOneIsRefusedWithTheCurrentEtag() {
        String yaml = currentYaml();
        var missing = json(putTiers(null, yaml).expectStatus().isEqualTo(428));
        assertThat(error(missing)).containsEntry("code", "precondition_required");

        String current = etag();
        putTiers("\"0-000000000000\"", yaml)
                .expectStatus()
                .isEqualTo(412)
                .expectHeader()
                .valueEquals(HttpHeaders.ETAG, current)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("precondition_failed");

        String next = putTiers(current, yaml)
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseHeaders()
                .getETag();
        assertThat(next).isNotEqualTo(current);
        putTiers(current, yaml).expectStatus().isEqualTo(412).expectHeader().valueEquals(HttpHeaders.ETAG, next);
    }

    @Test
    void anInvalidPutChangesNothing() {
        String before = etag();
        String yaml = currentYaml().replace("tokens-per-minute: 10000\n", "tokens-per-minute: -5\n");
        var body = json(putTiers(before, yaml).expectStatus().isEqualTo(422));
        assertThat(fields(body)).anySatisfy(f -> assertThat(f).containsEntry("field", "tiers.free.tokens-per-minute"));
        assertThat(etag()).isEqualTo(before);
    }

    @Test
    void aPutNamingAVariableOutsideTheProviderPrefixIsRefusedAtItsLine() {
        String before = etag();
        String yaml = currentYaml();
        String hostile = yaml.replace("api-key-env: SLUICE_PROVIDER_API_KEY", "api-key-env: SLUICE_ADMIN_PASSWORD");
        assertThat(hostile).isNotEqualTo(yaml);
        int line = (int) hostile.substring(0, hostile.indexOf("api-key-env:"))
                        .chars()
                        .filter(c -> c == '\n')
                        .count()
                + 1;
        var body = json(putTiers(before, hostile).expectStatus().isEqualTo(422));
        assertThat(fields(body)).singleElement().satisfies(f -> {
            assertThat(f).containsEntry("field", "providers[0].api-key-env").containsEntry("line", line);
            assertThat((String) f.get("message")).startsWith("must start with SLUICE_PROVIDER_");
        });
        assertThat(etag()).isEqualTo(before);
    }

    @Test
    void aTierWithTenantsOnItCannotBeRemoved() {
        String yaml = currentYaml();
        String withoutEnterprise =
                yaml.substring(0, yaml.indexOf("  enterprise:")) + yaml.substring(yaml.indexOf("\nladder:") + 1);
        withoutEnterprise = withoutEnterprise.replace(
                "  - id: demo-enterprise\n    tier: enterprise\n", "  - id: demo-enterprise\n    tier: pro\n");
        var body = json(admin().post()
                .uri("/admin/api/tiers/validate")
                .contentType(AdminRequests.YAML)
                .bodyValue(withoutEnterprise)
                .exchange()
                .expectStatus()
                .isEqualTo(422));
        assertThat(fields(body)).anySatisfy(f -> {
            assertThat(f).containsEntry("field", "tiers.enterprise");
            assertThat((String) f.get("message")).contains("demo-enterprise");
        });
    }

    @Test
    void loweringATiersLimitChangesWhatTheNextRequestIsAdmitted() {
        String tenant = newTenant("free");
        String key = issueKey(tenant);
        assertThat(chat(key)).isEqualTo(200);
        String original = currentYaml();
        String etag = etag();
        try {
            String lowered = original.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 30\n");
            etag = putTiers(etag, lowered)
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .returnResult()
                    .getResponseHeaders()
                    .getETag();
            web.post()
                    .uri("/v1/chat/completions")
                    .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(CHAT)
                    .exchange()
                    .expectStatus()
                    .isEqualTo(429)
                    .expectHeader()
                    .exists(HttpHeaders.RETRY_AFTER)
                    .expectBody()
                    .jsonPath("$.error.code")
                    .isEqualTo("rate_limit_exceeded");
        } finally {
            putTiers(etag, original).expectStatus().isOk();
        }
    }

    // ---- tenants and keys ----------------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void tenantsAreCreatedListedAndChanged() {
        String id = newTenant("free");
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", id, "tier", "pro"))
                .exchange()
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("conflict");
        List<Map<String, Object>> list = (List<Map<String, Object>>)
                json(admin().get().uri("/admin/api/tenants").exchange()).get("tenants");
        assertThat(list)
                .anySatisfy(t -> assertThat(t)
                        .containsEntry("id", id)
                        .containsEntry("tier", "free")
                        .containsEntry("suspended", false)
                        .containsEntry("keyCount", 0));
        assertThat(list)
                .anySatisfy(t -> assertThat(t).containsEntry("id", "demo-pro").containsEntry("keyCount", 1));

        admin().patch()
                .uri("/admin/api/tenants/{id}", id)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("tier", "pro"))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.tier")
                .isEqualTo("pro")
                .jsonPath("$.suspended")
                .isEqualTo(false);
    }

    @Test
    void aNewTenantIsValidatedFieldByField() {
        var body = json(admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", "Not OK!", "tier", "platinum", "colour", "red"))
                .exchange()
                .expectStatus()
                .isEqualTo(422));
        assertThat(fields(body)).extracting(f -> f.get("field")).containsExactlyInAnyOrder("id", "tier", "colour");
        assertThat(fields(body))
                .anySatisfy(f -> assertThat((String) f.get("message")).contains("unknown tier 'platinum'"));
        var missing = json(admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of())
                .exchange()
                .expectStatus()
                .isEqualTo(422));
        assertThat(fields(missing)).extracting(f -> f.get("field")).containsExactlyInAnyOrder("id", "tier");
        admin().patch()
                .uri("/admin/api/tenants/demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of())
                .exchange()
                .expectStatus()
                .isEqualTo(422);
        admin().patch()
                .uri("/admin/api/tenants/demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("suspended", "yes"))
                .exchange()
                .expectStatus()
                .isEqualTo(422)
                .expectBody()
                .jsonPath("$.error.fields[0].field")
                .isEqualTo("suspended");
        admin().patch()
                .uri("/admin/api/tenants/nobody")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("tier", "pro"))
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("not_found");
    }

    @Test
    void suspendAndResumeTakeEffectOnTheNextRequest() {
        String id = newTenant("pro");
        String key = issueKey(id);
        assertThat(chat(key)).isEqualTo(200);
        admin().patch()
                .uri("/admin/api/tenants/{id}", id)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("suspended", true))
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(chat(key)).isEqualTo(403);
        admin().patch()
                .uri("/admin/api/tenants/{id}", id)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("suspended", false))
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(chat(key)).isEqualTo(200);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aKeyIsShownOnceListedWithoutItsSecretAndRevokedAtOnce() {
        String id = newTenant("free");
        var issued = admin().post()
                .uri("/admin/api/tenants/{id}/keys", id)
                .exchange()
                .expectStatus()
                .isCreated()
                .expectHeader()
                .valueEquals(HttpHeaders.CACHE_CONTROL, "no-store")
                .expectBody(Map.class)
                .returnResult();
        Map<String, Object> body = issued.getResponseBody();
        String secret = (String) body.get("key");
        String keyId = (String) body.get("id");
        assertThat(secret).startsWith("sk-sluice-");
        assertThat(body.get("hint")).isEqualTo("sk-sluice-…" + secret.substring(secret.length() - 4));
        assertThat(chat(secret)).isEqualTo(200);

        String listing = admin().get()
                .uri("/admin/api/tenants/{id}/keys", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(listing).contains(keyId).doesNotContain(secret).doesNotContain("\"key\"");
        admin().get()
                .uri("/admin/api/tenants/{id}", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.keys[0].id")
                .isEqualTo(keyId)
                .jsonPath("$.keyCount")
                .isEqualTo(1);

        admin().delete()
                .uri("/admin/api/tenants/{id}/keys/{keyId}", id, keyId)
                .exchange()
                .expectStatus()
                .isNoContent();
        assertThat(chat(secret)).isEqualTo(401);
        admin().delete()
                .uri("/admin/api/tenants/{id}/keys/{keyId}", id, keyId)
                .exchange()
                .expectStatus()
                .isNotFound();
        admin().post()
                .uri("/admin/api/tenants/nobody/keys")
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    // ---- usage ---------------------------------------------------------------------------

    @Test
    void theUsageSeriesOfATenant() {
        String id = newTenant("free");
        long now = ActivityBuffer.minuteOf(System.currentTimeMillis());
        for (int m = 1; m <= 90; m++) {
            history.append(
                            id,
                            new UsageSample(
                                    now - m * 60_000L, "free", 9_000, 9, 0.9, "minute", Map.of("passed", 9L), null),
                            1440)
                    .block();
        }
        admin().get()
                .uri("/admin/api/tenants/{id}/usage?hours=1", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.hours")
                .isEqualTo(1)
                .jsonPath("$.threshold")
                .isEqualTo(0.9)
                .jsonPath("$.points.length()")
                .isEqualTo(60)
                .jsonPath("$.points[0].tokens")
                .isEqualTo(9000)
                .jsonPath("$.points[0].stages.passed")
                .isEqualTo(9)
                .jsonPath("$.points[0].stages.busy")
                .isEqualTo(0);
        admin().get()
                .uri("/admin/api/tenants/{id}/usage", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.hours")
                .isEqualTo(6)
                .jsonPath("$.points.length()")
                .isEqualTo(90);
        admin().get()
                .uri("/admin/api/tenants/{id}/usage?hours=0", id)
                .exchange()
                .expectStatus()
                .isEqualTo(422)
                .expectBody()
                .jsonPath("$.error.fields[0].field")
                .isEqualTo("hours");
        admin().get()
                .uri("/admin/api/tenants/{id}/usage?hours=many", id)
                .exchange()
                .expectStatus()
                .isEqualTo(422);
        admin().get()
                .uri("/admin/api/tenants/nobody/usage")
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    // ---- flags ---------------------------------------------------------------------------

    Flag openFlag(String tenant) {
        long t = ActivityBuffer.minuteOf(System.currentTimeMillis()) - 20 * 60_000L;
        List<UsageSample> evidence = IntStream.range(0, 15)
                .mapToObj(i -> new UsageSample(
                        t + i * 60_000L, "free", 9_500, 10, 0.95, "minute", Map.of("passed", 10L), null))
                .toList();
        Flag f = Flag.open(
                "flag_" + tenant,
                tenant,
                "free",
                Instant.now(),
                new CeilingDetector.Finding(new CeilingDetector.Run(t, 15), evidence));
        return flags.openIfNone(f).block(Duration.ofSeconds(5));
    }

    WebTestClient.ResponseSpec review(String flagId, Map<String, Object> body) {
        return admin().post()
                .uri("/admin/api/flags/{id}/review", flagId)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    @Test
    void openFlagsAreListedWithTheirEvidence() {
        Flag f = openFlag(newTenant("free"));
        admin().get()
                .uri("/admin/api/flags?status=open")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.flags[?(@.id == '" + f.id() + "')].evidence.length()")
                .isEqualTo(15)
                .jsonPath("$.flags[?(@.id == '" + f.id() + "')].status")
                .isEqualTo("open");
        admin().get()
                .uri("/admin/api/flags/{id}", f.id())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.runMinutes")
                .isEqualTo(15)
                .jsonPath("$.evidence[0].utilisation")
                .isEqualTo(0.95);
        admin().get()
                .uri("/admin/api/flags?status=maybe")
                .exchange()
                .expectStatus()
                .isEqualTo(422);
        admin().get()
                .uri("/admin/api/flags/flag_nope")
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    @Test
    void aDismissalNeedsANoteAndIsKeptWithWhoAndWhen() {
        Flag f = openFlag(newTenant("free"));
        var missing =
                json(review(f.id(), Map.of("action", "dismiss")).expectStatus().isEqualTo(422));
        assertThat(fields(missing)).singleElement().satisfies(x -> assertThat(x).containsEntry("field", "note"));
        review(f.id(), Map.of("action", "dismiss", "note", "nightly batch, agreed"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("dismissed")
                .jsonPath("$.reviews[0].by")
                .isEqualTo(USER)
                .jsonPath("$.reviews[0].action")
                .isEqualTo("dismiss")
                .jsonPath("$.reviews[0].note")
                .isEqualTo("nightly batch, agreed")
                .jsonPath("$.reviews[0].at")
                .isNotEmpty();
        review(f.id(), Map.of("action", "confirm-suspend"))
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("flag_closed");
        review(f.id(), Map.of("action", "comment", "note", "called them"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.reviews.length()")
                .isEqualTo(2)
                .jsonPath("$.status")
                .isEqualTo("dismissed");
    }

    @Test
    void confirmAndSuspendSuspendsTheTenant() {
        String tenant = newTenant("free");
        String key = issueKey(tenant);
        Flag f = openFlag(tenant);
        review(f.id(), Map.of("action", "confirm-suspend", "note", "scripted, resold access"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("confirmed");
        admin().get()
                .uri("/admin/api/tenants/{id}", tenant)
                .exchange()
                .expectBody()
                .jsonPath("$.suspended")
                .isEqualTo(true);
        assertThat(chat(key)).isEqualTo(403);
    }

    @Test
    void confirmAndMoveTierNeedsAKnownTierAndMovesTheTenant() {
        String tenant = newTenant("free");
        Flag f = openFlag(tenant);
        review(f.id(), Map.of("action", "confirm-move-tier"))
                .expectStatus()
                .isEqualTo(422)
                .expectBody()
                .jsonPath("$.error.fields[0].field")
                .isEqualTo("tier");
        review(f.id(), Map.of("action", "confirm-move-tier", "tier", "gold"))
                .expectStatus()
                .isEqualTo(422);
        review(f.id(), Map.of("action", "teleport"))
                .expectStatus()
                .isEqualTo(422)
                .expectBody()
                .jsonPath("$.error.fields[0].field")
                .isEqualTo("action");
        review(f.id(), Map.of("action", "confirm-move-tier", "tier", "pro", "note", "a real customer, sold pro"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.reviews[0].tier")
                .isEqualTo("pro");
        admin().get()
                .uri("/admin/api/tenants/{id}", tenant)
                .exchange()
                .expectBody()
                .jsonPath("$.tier")
                .isEqualTo("pro");
        // The review is audited; the refused attempts before it are not (nothing changed).
        admin().get()
                .uri("/admin/api/audit?limit=1")
                .exchange()
                .expectBody()
                .jsonPath("$.entries[0].action")
                .isEqualTo("flag.reviewed")
                .jsonPath("$.entries[0].target")
                .isEqualTo(tenant)
                .jsonPath("$.entries[0].details.flag")
                .isEqualTo(f.id())
                .jsonPath("$.entries[0].details.review")
                .isEqualTo("confirm-move-tier")
                .jsonPath("$.entries[0].details.tier")
                .isEqualTo("pro");
    }

    // ---- errors --------------------------------------------------------------------------

    @Test
    void errorsAreJsonWithACode() {
        admin().get()
                .uri("/admin/api/nothing-here")
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unknown_endpoint");
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\": ")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("invalid_json");
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("id=x")
                .exchange()
                .expectStatus()
                .isEqualTo(415)
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("unsupported_media_type");
        admin().put()
                .uri("/admin/api/tiers")
                .header(HttpHeaders.IF_MATCH, "*")
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("x: 1")
                .exchange()
                .expectStatus()
                .isEqualTo(415);
    }

    @Test
    void aWriteFromAnotherSitesPageIsRefused() {
        admin().post()
                .uri("/admin/api/tenants")
                .header(HttpHeaders.ORIGIN, "https://evil.example")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", "x-evil", "tier", "free"))
                .exchange()
                .expectStatus()
                .isForbidden()
                .expectBody()
                .jsonPath("$.error.code")
                .isEqualTo("cross_origin");
        admin().get().uri("/admin/api/tenants/x-evil").exchange().expectStatus().isNotFound();
    }
}
