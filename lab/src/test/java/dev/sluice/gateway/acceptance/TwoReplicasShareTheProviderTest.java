package dev.sluice.gateway.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.acceptance.SeedCrowd.Client;
import dev.sluice.gateway.acceptance.SeedCrowd.Page;
import dev.sluice.gateway.acceptance.SeedCrowd.Reply;
import dev.sluice.gateway.acceptance.SeedCrowd.Rig;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestRedis;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.LabStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two gateway replicas on one Redis, both sending to one provider with seed 000's limits
 * (scaled, see {@link SeedCrowd}), the crowd's pages split between them: each replica has
 * its own queue and its own idea of the pace, but the budget they draw on is one, so
 * together they never exceed what the provider accepts. Were the budget per replica, the
 * burst alone would send the provider twice its minute and twice its calls in flight.
 */
class TwoReplicasShareTheProviderTest {
    static final int PAGES = 20;
    /** A database of its own on the shared test Redis: its own tiers document, budgets and tenants. */
    static final int DATABASE = 11;

    static Rig rig;
    static LabProviderServer lab;
    static GatewayReplica a;
    static GatewayReplica b;
    static Client client;

    @BeforeAll
    static void start() {
        TestRedisTemplates.flushed(
                DATABASE); // a Redis kept between runs (SLUICE_TEST_REDIS_URL) holds the last run's budget
        rig = Rig.start(2, 400, 160, "spring.data.redis.url=" + TestRedis.url(DATABASE), "sluice.store.timeout=10s");
        lab = rig.lab();
        a = rig.gateways().get(0);
        b = rig.gateways().get(1);
        client = rig.client();
    }

    @AfterAll
    static void stop() {
        if (rig != null) rig.close();
    }

    static boolean viaA(Page p) {
        return p.tenant().compareTo("user-4") < 0;
    }

    static String refusal(Reply r) {
        if (!r.busy()) return "status " + r.status();
        String message = r.error().path("message").asString("");
        if (message.contains("was taken by calls")) return "gave way";
        if (message.contains("waited its whole")) return "waited too long";
        return "refused at the door";
    }

    @Test
    void togetherTheyNeverExceedTheProvidersLimits() throws Exception {
        // Six users with two 20-page books each, every page at once: 240 pages. Users 1-3 reach replica a,
        // users 4-6 replica b (a client's connections stay where the load balancer put them).
        List<List<Page>> crowd = new ArrayList<>();
        for (int u = 1; u <= 6; u++) {
            String id = "user-" + u;
            crowd.add(SeedCrowd.books(id, SeedCrowd.tenant(a, id), 2, PAGES)); // Redis: b knows the key too
        }
        List<Page> pages = SeedCrowd.interleave(crowd);
        int portA = a.port();
        int portB = b.port();

        List<Reply> replies = client.fire(
                        pages, p -> viaA(p) ? portA : portB, System.nanoTime(), "X-Sluice-Max-Wait", "30000")
                .block(Duration.ofSeconds(90));
        LabStats stats = lab.stats();
        List<Reply> served = replies.stream().filter(r -> r.status() == 200).toList();
        Map<String, Long> servedVia = new TreeMap<>(served.stream()
                .collect(Collectors.groupingBy(r -> viaA(r.page()) ? "a" : "b", Collectors.counting())));
        Map<String, Long> perUser = new TreeMap<>(
                served.stream().collect(Collectors.groupingBy(r -> r.page().tenant(), Collectors.counting())));
        // Not judged here: fairness between tenants on different replicas, which the fair queues' shared counters
        // give (sluice.dispatch.fair-share); TwoReplicasServeEqualTenantsEquallyTest judges it, 1 vs 5 and 3 vs 3.
        SeedCrowdTest.report(
                "pages served per user: %s; Jain's index across replicas %.4f",
                perUser, SeedCrowd.jain(perUser.values()));
        SeedCrowdTest.report(
                "two replicas: %d pages, %d served (%s), provider: %d tokens and %d requests in its minute at "
                        + "most (limits %d and %d), %d in flight at most (limit %d), %d × 429, %d × 503",
                pages.size(),
                served.size(),
                servedVia,
                stats.maxTokensInWindow(),
                stats.maxRequestsInWindow(),
                SeedCrowd.TOKENS_PER_MINUTE,
                SeedCrowd.REQUESTS_PER_MINUTE,
                stats.maxInFlightSeen(),
                SeedCrowd.MAX_IN_FLIGHT,
                stats.rejected429(),
                stats.rejected503());

        // Where the unserved pages went, per replica: refused at the door, given way when another replica's
        // sends took their room, or dropped after a wait. A shortfall in the minute reads from here.
        Map<String, Long> refusals = new TreeMap<>(replies.stream()
                .filter(r -> r.status() != 200)
                .collect(Collectors.groupingBy(
                        r -> (viaA(r.page()) ? "a " : "b ") + refusal(r), Collectors.counting())));
        SeedCrowdTest.report("not served: %s", refusals);

        assertThat(stats.rejected429()).isZero();
        assertThat(stats.rejected503()).isZero();
        assertThat(stats.maxTokensInWindow()).isLessThanOrEqualTo(SeedCrowd.TOKENS_PER_MINUTE);
        assertThat(stats.maxRequestsInWindow()).isLessThanOrEqualTo(SeedCrowd.REQUESTS_PER_MINUTE);
        assertThat(stats.maxInFlightSeen()).isLessThanOrEqualTo((int) (SeedCrowd.MAX_IN_FLIGHT * SeedCrowd.HEADROOM));
        // And they still spend most of it. A burst at both doors in one instant, never asked again, is the hard case:
        // each door reads the other's line as last shared beside a budget read at another moment, and a promise
        // that may not be kept gives way at once rather than fail its caller after a wait (Confirmations), so room
        // both doors gave way for can stay empty. Measured on 2 cores with that rule: 123 and 125 within the lab suite,
        // 134 to 142 alone (stop 40); at stop 46, 117, 120, 122 and 124 alone (stop 45's code: 117, 119, 121, 128) and
        // 120 in the suite, of the 143 pages the headroom holds: the floor's 115 is near. The judged runs, whose crowd
        // comes back, fill 96.8 % of the minute. The floor is 80 % of the headroom: below it, the doors lose more than
        // that known gap.
        assertThat(stats.maxTokensInWindow())
                .isGreaterThanOrEqualTo((long) (0.80 * SeedCrowd.HEADROOM * SeedCrowd.TOKENS_PER_MINUTE));
        assertThat(servedVia).containsKeys("a", "b");
        assertThat(stats.completed()).isEqualTo(served.size());
        assertThat(replies).allSatisfy(r -> {
            if (r.status() != 200) {
                assertThat(r.busy()).as("503 gateway_busy: %s", r.body()).isTrue();
                assertThat(r.error().path("position").asInt()).isPositive();
                assertThat(r.error().path("estimated_wait_ms").asLong()).isGreaterThan(30_000);
            }
        });
    }
}
