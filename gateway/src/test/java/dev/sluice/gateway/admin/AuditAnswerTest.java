package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /admin/api/audit} whole, after one write of each kind the admin API audits: each
 * entry's fields in their order, what each action's details hold (and leave out), and the
 * {@code sluice.audit} log line, which is the same entry.
 */
class AuditAnswerTest {
    private AdminApiFixture admin;
    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void setUp() throws IOException {
        admin = new AdminApiFixture(Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8));
        logged.start();
        auditLogger.addAppender(logged);
    }

    @AfterEach
    void tearDown() {
        auditLogger.detachAppender(logged);
    }

    @Test
    void eachChangeIsOneEntrySayingWhatChangedAndItsLogLineIsTheSameEntry() {
        write(HttpMethod.POST, "tenants", "{\"id\":\"acme\",\"tier\":\"free\"}");
        write(HttpMethod.PATCH, "tenants/acme", "{\"tier\":\"pro\",\"suspended\":true}");
        write(HttpMethod.PATCH, "tenants/acme", "{\"suspended\":false}");
        write(HttpMethod.PATCH, "tenants/acme", "{\"tier\":\"pro\"}"); // what it already is: nothing changed
        String keyId =
                write(HttpMethod.POST, "tenants/acme/keys", null).path("id").asString();
        write(HttpMethod.DELETE, "tenants/acme/keys/" + keyId, null);
        String etag = admin.client
                .get()
                .uri("/admin/api/tiers")
                .exchange()
                .returnResult(String.class)
                .getResponseHeaders()
                .getETag();
        admin.clock.advance(1_000);
        admin.client
                .put()
                .uri("/admin/api/tiers")
                .header("If-Match", etag)
                .contentType(AdminRequests.YAML)
                .bodyValue(admin.yaml)
                .exchange()
                .expectStatus()
                .isOk();
        admin.flags
                .openIfNone(new Flag(
                        "flag_1",
                        "acme",
                        "pro",
                        AdminApiFixture.START,
                        AdminApiFixture.START,
                        15,
                        List.of(),
                        FlagStatus.OPEN,
                        List.of(),
                        null))
                .block();
        write(HttpMethod.POST, "flags/flag_1/review", "{\"action\":\"confirm-move-tier\",\"tier\":\"enterprise\"}");
        write(HttpMethod.POST, "flags/flag_1/review", "{\"action\":\"comment\",\"note\":\"seen\"}");

        JsonNode entries = admin.get("audit").path("entries");
        assertThat(entries).isEqualTo(AdminApiFixture.JSON.readTree("""
                        [
                          {"at": "2001-02-03T04:05:15Z", "actor": "admin", "address": "unknown",
                           "action": "flag.reviewed", "target": "acme", "details": {"flag": "flag_1", "review": "comment"}},
                          {"at": "2001-02-03T04:05:14Z", "actor": "admin", "address": "unknown",
                           "action": "flag.reviewed", "target": "acme",
                           "details": {"flag": "flag_1", "review": "confirm-move-tier", "tier": "enterprise"}},
                          {"at": "2001-02-03T04:05:13Z", "actor": "admin", "address": "unknown",
                           "action": "tiers.replaced", "target": "tiers", "details": {"fromVersion": 1, "toVersion": 2}},
                          {"at": "2001-02-03T04:05:12Z", "actor": "admin", "address": "unknown",
                           "action": "key.revoked", "target": "acme", "details": {"keyId": "KEY"}},
                          {"at": "2001-02-03T04:05:11Z", "actor": "admin", "address": "unknown",
                           "action": "key.issued", "target": "acme", "details": {"keyId": "KEY"}},
                          {"at": "2001-02-03T04:05:10Z", "actor": "admin", "address": "unknown",
                           "action": "tenant.changed", "target": "acme", "details": {}},
                          {"at": "2001-02-03T04:05:09Z", "actor": "admin", "address": "unknown",
                           "action": "tenant.changed", "target": "acme",
                           "details": {"suspended": {"from": true, "to": false}}},
                          {"at": "2001-02-03T04:05:08Z", "actor": "admin", "address": "unknown",
                           "action": "tenant.changed", "target": "acme",
                           "details": {"tier": {"from": "free", "to": "pro"}, "suspended": {"from": false, "to": true}}},
                          {"at": "2001-02-03T04:05:07Z", "actor": "admin", "address": "unknown",
                           "action": "tenant.created", "target": "acme", "details": {"tier": "free", "suspended": false}}
                        ]
                        """.replace("KEY", keyId)));
        for (JsonNode e : entries) {
            assertThat(e.propertyNames()).containsExactly("at", "actor", "address", "action", "target", "details");
        }
        assertThat(admin.get("audit?limit=2").path("entries"))
                .as("the newest first")
                .containsExactly(entries.get(0), entries.get(1));

        List<JsonNode> lines = new ArrayList<>();
        for (ILoggingEvent event : logged.list) {
            JsonNode line = AdminApiFixture.JSON.readTree(event.getFormattedMessage());
            if (line.path("at").asString().startsWith("2001-02-03")) lines.add(0, line); // this test's, newest first
        }
        assertThat(lines).containsExactlyElementsOf(entries);
    }

    @Test
    void aSpendOverrideIsAuditedAsWhatItWasAndWhatItBecame() {
        write(HttpMethod.POST, "tenants", "{\"id\":\"acme\",\"tier\":\"free\"}");
        write(HttpMethod.PATCH, "tenants/acme", "{\"spend\":{\"usd-per-day\":0.5}}");
        write(HttpMethod.PATCH, "tenants/acme", "{\"spend\":{}}");
        JsonNode entries = admin.get("audit?limit=2").path("entries");
        assertThat(entries.get(1).path("details")).isEqualTo(AdminApiFixture.JSON.readTree("""
                {"spend": {"from": "the tier's", "to": "usd-per-day 0.50, usd-per-month the tier's, UTC"}}
                """));
        assertThat(entries.get(0).path("details").path("spend").path("to").asString())
                .isEqualTo("the tier's");
    }

    /** One audited write, a second after the last; its answer. */
    private JsonNode write(HttpMethod method, String path, String json) {
        admin.clock.advance(1_000);
        var request = admin.client.method(method).uri("/admin/api/" + path);
        if (json != null) request.contentType(MediaType.APPLICATION_JSON).bodyValue(json);
        String body = request.exchange()
                .expectStatus()
                .is2xxSuccessful()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        return body == null ? AdminApiFixture.JSON.missingNode() : AdminApiFixture.JSON.readTree(body);
    }
}
