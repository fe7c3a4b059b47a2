package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.spend.memory.InMemorySpendLedger;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.InMemoryOrganisationStore;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.tiers.InMemoryTierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin API's whole router ({@link AdminRoutes}, without its security) over in-memory
 * stores, a clock the test moves and meters of its own, so an answer is the same on every run
 * and can be compared whole, as the wire carries it.
 */
final class AdminApiFixture {
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** A date no other test's system clock gives: what this fixture writes is told apart by it. */
    static final Instant START = Instant.parse("2001-02-03T04:05:06Z");

    final String yaml;
    final FakeClock clock = new FakeClock(START.toEpochMilli());
    final MockClock meterClock = new MockClock();
    final MeterRegistry meters = new SimpleMeterRegistry(SimpleConfig.DEFAULT, meterClock);
    final ConfigRegistry config;
    final InMemoryTenantStore tenants = new InMemoryTenantStore();
    final InMemoryFlagStore flags = new InMemoryFlagStore();
    final InMemoryOrganisationStore organisations = new InMemoryOrganisationStore();
    final InMemoryQuotaStore quotaStore = new InMemoryQuotaStore(clock);
    final QuotaLimiter quota = new QuotaLimiter(
            quotaStore,
            null,
            Duration.ofSeconds(5),
            new SimpleMeterRegistry(),
            StoreState.alwaysUp(),
            null,
            clock,
            clock);
    final AuditLog audit = new AuditLog(clock);
    final InMemorySpendLedger ledger = new InMemorySpendLedger(clock);
    final OverviewHandler overview;
    final WebTestClient client;

    AdminApiFixture(String yaml) {
        this.yaml = yaml;
        this.config = new ConfigRegistry(TiersYamlParser.parse("tiers.yaml", yaml));
        this.overview = new OverviewHandler(meters, config, clock, Duration.ofMinutes(1));
        InMemoryTierDocumentStore documents = new InMemoryTierDocumentStore(clock);
        TierReloader reloader = new TierReloader(documents, config, "", new SimpleMeterRegistry(), c -> {});
        reloader.start(yaml, "tiers.yaml", Duration.ofSeconds(1));
        client = WebTestClient.bindToRouterFunction(new AdminRoutes()
                        .adminApiRoutes(
                                documents,
                                reloader,
                                tenants,
                                config,
                                new InMemoryUsageHistory(),
                                flags,
                                new QuotaClock(clock),
                                organisations,
                                quota,
                                overview,
                                new DefaultListableBeanFactory().getBeanProvider(AdminApiExtension.class),
                                audit,
                                AdminWritesFixture.validator(config),
                                ledger))
                .build();
    }

    /** The JSON answer of {@code GET /admin/api/<path>}, as sent. */
    JsonNode get(String path) {
        return JSON.readTree(client.get()
                .uri("/admin/api/" + path)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody());
    }

    /** A whole answer as expected, indented as {@link #pretty} writes it: {@code src/test/resources/admin/<name>}. */
    static String golden(String name) {
        try (InputStream in = AdminApiFixture.class.getResourceAsStream("/admin/" + name)) {
            if (in == null) throw new IllegalArgumentException("no test resource admin/" + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code json} indented, ending in a newline as a text block does: field order and number formats as written. */
    static String pretty(JsonNode json) {
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n";
    }
}
