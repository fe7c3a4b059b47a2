package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminWritesFixture.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaScope;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The organisations' admin API, memberships and keys' caps over in-memory stores: what it keeps, what it refuses and in which words. */
class OrganisationsRequestsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    final AdminApiFixture admin = new AdminApiFixture(read());

    static String read() {
        try {
            return Files.readString(Path.of("../tiers.yaml"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    WebTestClient.ResponseSpec send(HttpMethod method, String path, String json) {
        var spec = admin.client.method(method).uri("/admin/api" + path);
        return json == null
                ? spec.exchange()
                : spec.contentType(MediaType.APPLICATION_JSON).bodyValue(json).exchange();
    }

    JsonNode ok(HttpMethod method, String path, String json, int status) {
        return JSON.readTree(send(method, path, json)
                .expectStatus()
                .isEqualTo(status)
                .expectBody(String.class)
                .returnResult()
                .getResponseBody());
    }

    @Test
    void anOrganisationIsCreatedShownChangedAndDeleted() {
        JsonNode created = ok(
                HttpMethod.POST,
                "/organisations",
                "{\"id\":\" acme \",\"name\":\"Acme Inc.\",\"windows\":[{\"name\":\"minute\",\"seconds\":60,"
                        + "\"tokens\":5000,\"requests\":50},{\"name\":\"day\",\"seconds\":86400,\"tokens\":900000}],"
                        + "\"spend\":{\"usd-per-day\":1.5,\"time-zone\":\"Europe/Paris\"}}",
                201);
        assertThat(created.toString())
                .isEqualTo("{\"id\":\"acme\",\"name\":\"Acme Inc.\",\"windows\":[{\"name\":\"minute\",\"seconds\":60,"
                        + "\"tokens\":5000,\"requests\":50},{\"name\":\"day\",\"seconds\":86400,\"tokens\":900000,"
                        + "\"requests\":9223372036854775807}],\"spend\":{\"usd-per-day\":1.5,\"usd-per-month\":null,"
                        + "\"time-zone\":\"Europe/Paris\"},\"members\":[]}");
        assertThat(admin.organisations.findById("acme").block())
                .isEqualTo(new Organisation(
                        "acme",
                        "Acme Inc.",
                        List.of(
                                new WindowLimit("minute", 60, 5000, 50),
                                new WindowLimit("day", 86400, 900000, Long.MAX_VALUE)),
                        new SpendBudget(1_500_000, 0, java.time.ZoneId.of("Europe/Paris"))));
        ok(HttpMethod.POST, "/organisations", "{\"id\":\"acme\"}", 409);

        JsonNode changed = ok(HttpMethod.PATCH, "/organisations/acme", "{\"windows\":[],\"spend\":{}}", 200);
        assertThat(changed.path("windows").size()).isZero();
        assertThat(changed.has("spend")).isFalse();
        assertThat(ok(HttpMethod.GET, "/organisations", null, 200)
                        .path("organisations")
                        .size())
                .isEqualTo(1);
        assertThat(admin.audit.recent(10).stream().map(AuditLog.Entry::action))
                .containsSubsequence("organisation.changed", "organisation.created");

        send(HttpMethod.DELETE, "/organisations/acme", null).expectStatus().isNoContent();
        send(HttpMethod.GET, "/organisations/acme", null).expectStatus().isNotFound();
        send(HttpMethod.DELETE, "/organisations/acme", null).expectStatus().isNotFound();
        assertThat(admin.audit.recent(1).get(0).action()).isEqualTo("organisation.deleted");
    }

    @Test
    void aTenantJoinsAndLeavesAnExistingOrganisationOnly() {
        admin.tenants.create(new Tenant("t1", "free", false)).block();
        ok(HttpMethod.POST, "/organisations", "{\"id\":\"acme\"}", 201);
        expect(
                send(HttpMethod.PATCH, "/tenants/t1", "{\"organisation\":\"ghost\"}"),
                422,
                "organisation: unknown organisation 'ghost' (create it: POST /admin/api/organisations)",
                "organisation: unknown organisation 'ghost' (create it: POST /admin/api/organisations)");
        expect(
                send(HttpMethod.PATCH, "/tenants/t1", "{\"organisation\":7}"),
                422,
                "The change is not valid.",
                "(body): organisation: must be an organisation's id, or null to leave it");
        expect(
                send(HttpMethod.PATCH, "/tenants/t1", "{\"organisation\":\"Not An Id\"}"),
                422,
                "The change is not valid.",
                "(body): organisation: must be an organisation's id, or null to leave it");

        assertThat(ok(HttpMethod.PATCH, "/tenants/t1", "{\"organisation\":\"acme\"}", 200)
                        .path("organisation")
                        .asString())
                .isEqualTo("acme");
        assertThat(ok(HttpMethod.GET, "/organisations/acme", null, 200)
                        .path("members")
                        .toString())
                .isEqualTo("[\"t1\"]");
        expect(
                send(HttpMethod.DELETE, "/organisations/acme", null),
                409,
                "Organisation 'acme' still has members [t1]: move them out first (PATCH /admin/api/tenants/{id} "
                        + "{\"organisation\": null}).",
                "");
        assertThat(ok(HttpMethod.PATCH, "/tenants/t1", "{\"suspended\":false}", 200)
                        .path("organisation")
                        .asString())
                .as("absent: unchanged")
                .isEqualTo("acme");
        assertThat(ok(HttpMethod.PATCH, "/tenants/t1", "{\"organisation\":null}", 200)
                        .has("organisation"))
                .as("null: leaves it")
                .isFalse();
        assertThat(admin.audit.recent(1).get(0).details().toString())
                .contains("organisation=Change[from=acme, to=null]");
        send(HttpMethod.DELETE, "/organisations/acme", null).expectStatus().isNoContent();
    }

    @Test
    void badOrganisationsAreRefusedFieldByField() {
        expect(
                send(HttpMethod.POST, "/organisations", "{\"id\":\"\"}"),
                422,
                "The organisation is not valid.",
                "id: must be a non-empty string");
        expect(
                send(
                        HttpMethod.POST,
                        "/organisations",
                        "{\"id\":\"a:b\",\"windows\":[{\"name\":\"o:x\",\"seconds\":30,\"tokens\":-1}]}"),
                422,
                "The organisation is not valid.",
                "id: must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit"
                        + " | windows: name must be 1-32 lower-case letters, digits, '_' or '-', starting with a letter"
                        + " or digit | windows: seconds must be at least 60 | windows: tokens must be at least 1");
        expect(
                send(
                        HttpMethod.POST,
                        "/organisations",
                        "{\"id\":\"big\",\"windows\":[{\"name\":\"m\",\"seconds\":90,\"tokens\":9223372036854775807}]}"),
                422,
                "The organisation is not valid.",
                "windows: seconds must be a whole number of minutes | windows: tokens must be at most 1000000000000000");
        expect(
                send(
                        HttpMethod.POST,
                        "/organisations",
                        "{\"id\":\"twice\",\"windows\":[{\"name\":\"m\",\"seconds\":60,\"tokens\":1},"
                                + "{\"name\":\"m\",\"seconds\":120,\"tokens\":1}]}"),
                422,
                "The organisation is not valid.",
                "(body): window names must differ");
        expect(
                send(HttpMethod.POST, "/organisations", "{\"id\":\"neg\",\"spend\":{\"usd-per-day\":-1}}"),
                422,
                "The organisation is not valid.",
                "spend: usd-per-day must be above 0 (leave it out to keep the tier's)");
        expect(
                send(HttpMethod.PATCH, "/organisations/ghost", "{\"name\":\"x\"}"),
                404,
                "Organisation 'ghost' not found",
                "");
        ok(HttpMethod.POST, "/organisations", "{\"id\":\"empty\"}", 201);
        expect(
                send(HttpMethod.PATCH, "/organisations/empty", "{}"),
                422,
                "The change is not valid.",
                "(body): nothing to change: give name, windows and/or spend");
    }

    @Test
    void anOrganisationsUsageIsPeekedChargingNothing() {
        ok(
                HttpMethod.POST,
                "/organisations",
                "{\"id\":\"acme\",\"windows\":[{\"name\":\"minute\",\"seconds\":60,\"tokens\":1000}],"
                        + "\"spend\":{\"usd-per-day\":1}}",
                201);
        Organisation acme = admin.organisations.findById("acme").block();
        Tenant t1 = new Tenant("t1", "free", false, null, "acme");
        var tier = admin.config.current().tier("free").orElseThrow();
        QuotaScope scope = admin.quota.scope(t1, acme, null, tier, null);
        assertThat(admin.quota
                        .acquire(scope, tier, 400, 250_000, dev.sluice.gateway.store.DecisionBudget.UNLIMITED)
                        .block()
                        .admitted())
                .isTrue();
        for (int i = 0; i < 2; i++) { // twice: the first look charged nothing
            JsonNode usage = ok(HttpMethod.GET, "/organisations/acme/usage", null, 200);
            assertThat(usage.path("windows").path(0).path("name").asString()).isEqualTo("minute");
            assertThat(usage.path("windows").path(0).path("usedTokens").asLong())
                    .isEqualTo(400);
            assertThat(usage.path("windows").path(0).path("limitRequests").isNull())
                    .isTrue();
            assertThat(usage.path("spend").path(0).path("usedUsd").decimalValue())
                    .isEqualByComparingTo("0.25");
            assertThat(usage.path("spend").path(0).path("remainingUsd").decimalValue())
                    .isEqualByComparingTo("0.75");
        }
    }

    @Test
    void aKeyIsIssuedWithItsOwnCapsAndChangedAndBadCapsAreRefused() {
        admin.tenants.create(new Tenant("t1", "free", false)).block();
        JsonNode plain = ok(HttpMethod.POST, "/tenants/t1/keys", null, 201);
        assertThat(plain.has("tokensPerMinute"))
                .as("no body: no caps, as before")
                .isFalse();
        JsonNode issued = ok(
                HttpMethod.POST,
                "/tenants/t1/keys",
                "{\"tokensPerMinute\":2000,\"usdPerDay\":0.25,\"expiresAt\":\"2099-01-31T00:00:00Z\"}",
                201);
        assertThat(issued.path("tokensPerMinute").asLong()).isEqualTo(2000);
        assertThat(issued.path("usdPerDay").decimalValue()).isEqualByComparingTo("0.25");
        assertThat(issued.path("expiresAt").asString()).isEqualTo("2099-01-31T00:00:00Z");
        String keyId = issued.path("id").asString();
        TenantKey kept =
                admin.tenants.keys("t1").filter(k -> k.id().equals(keyId)).blockFirst();
        assertThat(kept.tokensPerMinute()).isEqualTo(2000);
        assertThat(kept.usdPerDayMicros()).isEqualTo(250_000);

        JsonNode changed =
                ok(HttpMethod.PATCH, "/tenants/t1/keys/" + keyId, "{\"tokensPerMinute\":0,\"expiresAt\":null}", 200);
        assertThat(changed.has("tokensPerMinute")).isFalse();
        assertThat(changed.has("expiresAt")).isFalse();
        assertThat(changed.path("usdPerDay").decimalValue())
                .as("absent: unchanged")
                .isEqualByComparingTo("0.25");
        assertThat(admin.audit.recent(1).get(0).action()).isEqualTo("key.changed");

        expect(
                send(
                        HttpMethod.POST,
                        "/tenants/t1/keys",
                        "{\"tokensPerMinute\":-1,\"usdPerDay\":0.0000001,\"expiresAt\":\"tomorrow\"}"),
                422,
                "The key's caps are not valid.",
                "(body): expiresAt: must be an ISO-8601 instant such as 2027-01-31T00:00:00Z, or null | "
                        + "tokensPerMinute: must not be negative (0: no cap of its own) | usdPerDay: is finer than a "
                        + "micro-dollar (at most 6 decimals)");
        expect(
                send(HttpMethod.POST, "/tenants/t1/keys", "{\"tokensPerMinute\":9223372036854775807}"),
                422,
                "The key's caps are not valid.",
                "tokensPerMinute: must be at most 1000000000000000");
        expect(
                send(HttpMethod.POST, "/tenants/t1/keys", "{\"expiresAt\":\"2001-01-01T00:00:00Z\"}"),
                422,
                "expiresAt: must be in the future, got 2001-01-01T00:00:00Z",
                "expiresAt: must be in the future, got 2001-01-01T00:00:00Z");
        expect(
                send(HttpMethod.PATCH, "/tenants/t1/keys/key_000000000000", "{\"tokensPerMinute\":5}"),
                404,
                "Key 'key_000000000000' of tenant 't1' not found",
                "");
        expect(
                send(HttpMethod.PATCH, "/tenants/t1/keys/" + keyId, "{}"),
                422,
                "(body): nothing to change: give tokensPerMinute, usdPerDay and/or expiresAt",
                "(body): nothing to change: give tokensPerMinute, usdPerDay and/or expiresAt");
        TenantKey other = TenantKey.forSecret(ApiKeys.generate(), Instant.now());
        assertThat(other.expiredAt(Instant.now())).isFalse();
    }
}
