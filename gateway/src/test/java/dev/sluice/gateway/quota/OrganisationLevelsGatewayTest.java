package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The organisation → tenant → key levels through the whole gateway on a real Redis, over real HTTP,
 * with a fake upstream that reports no usage (so each admitted call settles at its reservation):
 * organisations and memberships made through the admin API; an organisation's budget caps its
 * members together, a key's own cap refuses while its tenant has room, an expired key is 401 and
 * charges nothing, and where each level's counters live in Redis.
 */
class OrganisationLevelsGatewayTest {
    /** A database of its own: its own tiers document (a cached context on database 0 may replace the shared one). */
    static final int DATABASE = 15;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering("{\"id\":\"no-usage\"}");

    static GatewayReplica gateway;

    @BeforeAll
    static void start() throws IOException {
        String tiers = TestTiers.written("organisations/tiers.yaml", """
                tiers:
                  roomy:
                    tokens-per-minute: 1000000
                    requests-per-minute: 6000
                    priority: 2
                    downgrade: {gpt-4o: gpt-4o-mini}
                    spend: {usd-per-day: 100}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 15000, tokens-per-minute: 3000000, max-in-flight: 400, price-per-million-tokens: 3}
                """);
        gateway = GatewayReplica.builder()
                .redis(DATABASE)
                .upstream(UPSTREAM)
                .property("sluice.tiers.path", tiers)
                .property("sluice.admin.password", "organisations test")
                .start();
        port = gateway.port();
        tenants = gateway.bean(TenantStore.class);
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** About 308 tokens: $0.000924 at $3 per million. */
    static final String BODY =
            "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}";

    static int port;
    static TenantStore tenants;

    final ReactiveStringRedisTemplate redis = TestRedisTemplates.template(DATABASE);

    record Answer(int status, HttpHeaders headers, JsonNode body) {
        String code() {
            return body.path("error").path("code").asString();
        }

        String message() {
            return body.path("error").path("message").asString();
        }
    }

    Answer chat(String key) {
        return WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port)
                .build()
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(BODY)
                .exchangeToMono(r -> r.bodyToMono(String.class)
                        .defaultIfEmpty("{}")
                        .map(b -> new Answer(r.statusCode().value(), r.headers().asHttpHeaders(), JSON.readTree(b))))
                .block(Duration.ofSeconds(30));
    }

    JsonNode admin(String method, String path, String json, int status) {
        String body = WebClient.builder()
                .baseUrl("http://127.0.0.1:" + port + "/admin/api")
                .defaultHeaders(h -> h.setBasicAuth("admin", "organisations test"))
                .build()
                .method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(path)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(json == null ? "" : json)
                .exchangeToMono(r -> {
                    assertThat(r.statusCode().value()).as(method + " " + path).isEqualTo(status);
                    return r.bodyToMono(String.class).defaultIfEmpty("{}");
                })
                .block(Duration.ofSeconds(10));
        return JSON.readTree(body);
    }

    String organisation(String json) {
        String id = "org-" + UUID.randomUUID();
        admin("POST", "/organisations", "{\"id\":\"" + id + "\"," + json + "}", 201);
        return id;
    }

    void join(String tenant, String org) {
        admin(
                "PATCH",
                "/tenants/" + tenant,
                "{\"organisation\":" + (org == null ? "null" : "\"" + org + "\"") + "}",
                200);
    }

    Set<String> keys(String pattern) {
        return Set.copyOf(redis.keys(pattern).collectList().block(Duration.ofSeconds(5)));
    }

    @Test
    void anOrganisationsBudgetCapsItsTenantsTogetherAndNoOneOutsideIt() {
        // $0.005 a day: five requests' reservations ($0.000924 each) fit, the sixth does not.
        String org = organisation("\"spend\":{\"usd-per-day\":0.005}");
        TestTenants.Created a = TestTenants.create(tenants, "member-a", "roomy");
        TestTenants.Created b = TestTenants.create(tenants, "member-b", "roomy");
        TestTenants.Created outsider = TestTenants.create(tenants, "outsider", "roomy");
        join(a.id(), org);
        join(b.id(), org);

        int admitted = 0;
        Answer last = null;
        java.math.BigDecimal cost = null;
        for (int i = 0; i < 12; i++) {
            last = chat(i % 2 == 0 ? a.key() : b.key());
            if (last.status() != 200) break;
            if (cost == null) // the day's header tells the least left of any level: the organisation's
            cost = new java.math.BigDecimal("0.005")
                    .subtract(new java.math.BigDecimal(last.headers().getFirst("X-Sluice-Budget-Remaining-USD-Day")));
            admitted++;
        }
        java.math.BigDecimal spent = cost.multiply(java.math.BigDecimal.valueOf(admitted));
        assertThat(admitted).as("the two members share $0.005").isEqualTo(5);
        assertThat(last.status()).isEqualTo(429);
        assertThat(last.code()).isEqualTo("budget_exceeded");
        assertThat(last.message())
                .startsWith("Spend budget reached for organisation '" + org
                        + "': the organisation's daily spend budget of $0.005");
        assertThat(last.headers().getFirst(HttpHeaders.RETRY_AFTER)).isNotNull();
        Answer other = chat(admitted % 2 == 0 ? b.key() : a.key());
        assertThat(other.status()).as("the other member too").isEqualTo(429);
        assertThat(chat(outsider.key()).status()).as("a tenant outside it").isEqualTo(200);

        JsonNode usage = admin("GET", "/organisations/" + org + "/usage", null, 200);
        // Settled (no usage reported: at the gateway's own count, at most what was reserved) on the shared counter.
        java.math.BigDecimal reserved = spent;
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(admin("GET", "/organisations/" + org + "/usage", null, 200)
                                .path("spend")
                                .path(0)
                                .path("usedUsd")
                                .decimalValue())
                        .isLessThanOrEqualTo(reserved)
                        .isGreaterThan(reserved.multiply(new java.math.BigDecimal("0.9"))));
        assertThat(usage.path("spend").path(0).path("period").asString()).isEqualTo("day");
        JsonNode view = admin("GET", "/organisations/" + org, null, 200);
        assertThat(view.path("members").toString()).contains(a.id(), b.id());
        admin("DELETE", "/organisations/" + org, null, 409);
    }

    @Test
    void anOrganisationsWindowNamesItselfInTheRefusalAndTheHeaders() {
        String org = organisation("\"windows\":[{\"name\":\"minute\",\"seconds\":60,\"tokens\":700}]");
        TestTenants.Created a = TestTenants.create(tenants, "windowed", "roomy");
        join(a.id(), org);
        Answer first = chat(a.key());
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.headers().getFirst("RateLimit-Policy")).contains("\"organisation-minute-tokens\";q=700;w=60");
        assertThat(first.headers().getFirst("x-ratelimit-limit-tokens"))
                .as("the OpenAI headers still describe the tenant's minute")
                .isEqualTo("1000000");
        Answer second = chat(a.key());
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.headers().getFirst("X-Sluice-Degraded"))
                .as("past 80 % of the organisation's window (the tenant's own is nearly empty), the ladder downgrades")
                .isEqualTo("model-downgraded; from=gpt-4o; to=gpt-4o-mini");
        assertThat(first.headers().getFirst("X-Sluice-Degraded")).isNull();
        Answer refused = chat(a.key());
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("rate_limit_exceeded");
        assertThat(refused.message())
                .startsWith("Rate limit reached for organisation '" + org + "' on the minute window");
        assertThat(Long.parseLong(refused.headers().getFirst("retry-after-ms"))).isPositive();
    }

    @Test
    void aKeysOwnCapRefusesWhileItsTenantHasRoom() {
        TestTenants.Created t = TestTenants.create(tenants, "capped-key", "roomy");
        String secret = ApiKeys.generate();
        TenantKey capped = TenantKey.forSecret(secret, Instant.now()).with(500, 0, null);
        tenants.addKey(t.id(), capped).block(Duration.ofSeconds(5));

        assertThat(chat(secret).status()).isEqualTo(200);
        Answer refused = chat(secret);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("rate_limit_exceeded");
        assertThat(refused.message())
                .startsWith("Rate limit reached for key " + capped.id()
                        + " on its own tokens-per-minute cap: limit 500 tokens");
        assertThat(chat(t.key()).status()).as("the tenant's other key").isEqualTo(200);
        assertThat(keys("sluice:q:{" + t.id() + "}:k:*"))
                .as("a non-member's key cap lives under the tenant")
                .containsExactly("sluice:q:{" + t.id() + "}:k:" + capped.id() + ":minute");
    }

    @Test
    void anExpiredKeyIs401AndChargesNothing() {
        TestTenants.Created t = TestTenants.create(tenants, "expired-key", "roomy");
        String secret = ApiKeys.generate();
        tenants.addKey(
                        t.id(),
                        TenantKey.forSecret(secret, Instant.now())
                                .with(0, 0, Instant.now().minusSeconds(1)))
                .block(Duration.ofSeconds(5));
        Answer refused = chat(secret);
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.code()).isEqualTo("key_expired");
        assertThat(refused.message()).contains("expired");
        assertThat(keys("sluice:q:{" + t.id() + "}:*")).as("nothing charged").isEmpty();
    }

    @Test
    void aNonMembersKeysStayWhereTheyWereAndAMembersMoveUnderItsOrganisationInOneSlot() {
        TestTenants.Created t = TestTenants.create(tenants, "mover", "roomy");
        Answer first = chat(t.key());
        assertThat(first.status()).isEqualTo(200);
        String day = java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString();
        assertThat(keys("sluice:q:{" + t.id() + "}:*"))
                .contains("sluice:q:{" + t.id() + "}:minute", "sluice:q:{" + t.id() + "}:spend:day:" + day);

        String org = organisation("\"windows\":[{\"name\":\"minute\",\"seconds\":60,\"tokens\":100000}],"
                + "\"spend\":{\"usd-per-day\":1}");
        join(t.id(), org);
        Answer moved = chat(t.key());
        assertThat(moved.status()).isEqualTo(200);
        assertThat(moved.headers().getFirst("x-ratelimit-remaining-tokens"))
                .as("its windows start afresh under the organisation: only this request in them")
                .isEqualTo(first.headers().getFirst("x-ratelimit-remaining-tokens"));
        Set<String> under = keys("sluice:q:{org:" + org + "}:*");
        assertThat(under)
                .contains(
                        "sluice:q:{org:" + org + "}:t:" + t.id() + ":minute",
                        "sluice:q:{org:" + org + "}:o:minute",
                        "sluice:q:{org:" + org + "}:o:spend:day:" + day);
        assertThat(under.stream().map(SlotHash::getSlot).collect(Collectors.toSet()))
                .as("every key of the member's acquire in one Cluster slot")
                .hasSize(1);

        join(t.id(), null);
        assertThat(chat(t.key()).status()).isEqualTo(200);
        JsonNode tenant = admin("GET", "/tenants/" + t.id(), null, 200);
        assertThat(tenant.has("organisation")).isFalse();
        assertThat(List.copyOf(keys("sluice:q:{" + t.id() + "}:minute"))).hasSize(1);
    }
}
