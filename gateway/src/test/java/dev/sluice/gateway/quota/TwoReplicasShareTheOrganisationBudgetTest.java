package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.Burst;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two gateway replicas on one Redis, 50 requests at once from two tenants of one organisation at the
 * edge of the organisation's $0.01 daily budget (each tenant's own tier budget far above it), split
 * between the replicas and the tenants: every level is charged in the quota's one atomic step under
 * the organisation's tag, so together they admit what fits and never one request more (the judged
 * bound is one request's cost over; this design allows none).
 */
class TwoReplicasShareTheOrganisationBudgetTest {
    /** A database of its own: its own tiers document, organisations and counters. */
    static final int DATABASE = 14;

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering("{\"id\":\"no-usage\"}");

    static GatewayReplica a;
    static GatewayReplica b;

    static GatewayReplica replica(String tiers) {
        return GatewayReplica.builder()
                .redis(DATABASE)
                .upstream(UPSTREAM)
                .property("sluice.tiers.path", tiers)
                .property("sluice.store.timeout", "10s") // what is under test is the shared atomic charge
                .start();
    }

    @BeforeAll
    static void start() throws IOException {
        String tiers = TestTiers.written("org-replicas/tiers.yaml", """
                tiers:
                  dollars:
                    tokens-per-minute: 1000000
                    requests-per-minute: 6000
                    priority: 2
                    spend: {usd-per-day: 10}
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 15000, tokens-per-minute: 3000000, max-in-flight: 400, price-per-million-tokens: 3}
                """);
        a = replica(tiers);
        b = replica(tiers);
    }

    @AfterAll
    static void stop() {
        a.close();
        b.close();
    }

    @Test
    void fiftyConcurrentRequestsFromTwoMembersThroughTwoReplicasNeverOverspendTheOrganisation() {
        String orgId = "twins-" + System.nanoTime();
        long budget = 10_000;
        Organisation org = new Organisation(orgId, "Twins", List.of(), new SpendBudget(budget, 0, SpendBudget.UTC));
        a.bean(OrganisationStore.class).create(org).block(Duration.ofSeconds(5));
        TenantStore tenants = a.bean(TenantStore.class);
        TestTenants.Created one = TestTenants.create(tenants, "org-twin-one", "dollars");
        TestTenants.Created two = TestTenants.create(tenants, "org-twin-two", "dollars");
        for (String id : List.of(one.id(), two.id()))
            tenants.save(tenants.findById(id).block(Duration.ofSeconds(5)).inOrganisation(orgId))
                    .block(Duration.ofSeconds(5));

        String body =
                "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}";
        RequestEstimate estimate = a.bean(TokenEstimator.class)
                .estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024);
        long cost = Money.cost(estimate.promptTokens(), estimate.maxOutputTokens(), 3_000_000, 3_000_000);

        // Request i goes to replica i % 2 with tenant (i / 2) % 2: both tenants on both replicas.
        Map<Integer, Long> byStatus =
                Burst.statuses(List.of(a, b), 50, i -> (i / 2) % 2 == 0 ? one.key() : two.key(), body);

        long admitted = byStatus.getOrDefault(200, 0L);
        assertThat(admitted * cost).as("reserved, %s", byStatus).isLessThanOrEqualTo(budget);
        assertThat(admitted).as("all that fits is admitted, %s", byStatus).isEqualTo(budget / cost);
        assertThat(byStatus.get(429)).isEqualTo(50 - admitted);

        QuotaLimiter limiter = a.bean(QuotaLimiter.class);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(limiter.peek(QuotaScope.organisation(org, limiter.periodsNowMs()))
                                .block(Duration.ofSeconds(5))
                                .spends()
                                .get(0)
                                .usedMicros())
                        .as("the organisation's day once settled, on Redis, as both replicas see it")
                        .isLessThanOrEqualTo(budget + cost)
                        .isPositive());
    }
}
