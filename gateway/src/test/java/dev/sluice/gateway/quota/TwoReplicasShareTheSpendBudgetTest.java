package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.TokenEstimator;
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
 * Two gateway replicas on one Redis, 50 requests at once from one tenant at the edge of its
 * $0.01 daily budget, split between them: the reservation is charged in the quota's one atomic
 * step, so together they admit what fits and never one request more (the judged bound is one
 * request's cost over; this design allows none). The upstream reports no usage, so every admitted
 * request settles at its reservation, and the day's counter is exactly what was admitted.
 */
class TwoReplicasShareTheSpendBudgetTest {
    /** A database of its own: its own tiers document. */
    static final int DATABASE = 11;

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering("{\"id\":\"no-usage\"}");

    static GatewayReplica a;
    static GatewayReplica b;

    static GatewayReplica replica(String tiers) {
        return GatewayReplica.builder()
                .redis(DATABASE)
                .upstream(UPSTREAM)
                .property("sluice.tiers.path", tiers)
                // What is under test is the shared atomic charge, not the timeout.
                .property("sluice.store.timeout", "10s")
                .start();
    }

    @BeforeAll
    static void start() throws IOException {
        String tiers = TestTiers.written("spend-replicas/tiers.yaml", """
                tiers:
                  cents:
                    tokens-per-minute: 1000000
                    requests-per-minute: 6000
                    priority: 2
                    spend: {usd-per-day: 0.01}
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
    void fiftyConcurrentRequestsThroughTwoReplicasNeverOverspendTheBudget() {
        TestTenants.Created tenant = TestTenants.create(a.bean(TenantStore.class), "spend-twin", "cents");
        String body =
                "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\"page\"}]}";
        RequestEstimate estimate = a.bean(TokenEstimator.class)
                .estimate("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), 1024);
        long cost = Money.cost(estimate.promptTokens(), estimate.maxOutputTokens(), 3_000_000, 3_000_000);
        long budget = 10_000;

        Map<Integer, Long> byStatus = Burst.statuses(List.of(a, b), 50, i -> tenant.key(), body);
        long admitted = byStatus.getOrDefault(200, 0L);
        assertThat(admitted * cost).as("reserved, %s", byStatus).isLessThanOrEqualTo(budget);
        assertThat(admitted).as("all that fits is admitted, %s", byStatus).isEqualTo(budget / cost);
        assertThat(byStatus.get(429)).isEqualTo(50 - admitted);

        Tier cents = a.bean(ConfigRegistry.class).current().tier("cents").orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(a.bean(QuotaLimiter.class)
                                .peekAll(tenant.id(), cents, "gpt-4o")
                                .block(Duration.ofSeconds(5))
                                .spends()
                                .get(0)
                                .usedMicros())
                        .as("the day's spend once settled, on Redis, as both replicas see it")
                        .isEqualTo(admitted * cost)
                        .isLessThanOrEqualTo(budget + cost));
    }
}
