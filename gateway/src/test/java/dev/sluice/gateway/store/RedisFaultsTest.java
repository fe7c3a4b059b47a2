package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.RedisProcess;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Fault injection with a real redis-server this test owns: paused (SIGSTOP), killed and
 * restarted empty. The bounds are wall-clock "no hang" bounds, generous for a loaded 2-core
 * machine: with a 500 ms store timeout, every request and health call is decided within 1.5 s.
 */
@GatewayTest(
        properties = {
            "sluice.demo.tenants=true",
            "sluice.store.timeout=500ms",
            "sluice.store.known-keys-refresh=1s",
            "sluice.abuse.sampler.enabled=false"
        })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisFaultsTest {
    static final long BOUND_MS = 1_500;
    static final RedisProcess REDIS = RedisProcess.started();

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(FaultHttp.UPSTREAM_ANSWER);

    @DynamicPropertySource
    static void props(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", REDIS::url);
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @AfterAll
    static void stop() {
        REDIS.close();
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    ReactiveStringRedisTemplate redis;

    @Autowired
    MeterRegistry meters;

    @Autowired
    StoreState state;

    @Autowired
    TierReloader reloader;

    FaultHttp http() {
        return new FaultHttp(port);
    }

    @Test
    @Order(1)
    void whileRedisIsPausedEachTierIsDecidedByItsPolicyWithinTheBound() {
        FaultHttp http = http();
        assertThat(http.chat("sk-sluice-demo-free").status()).isEqualTo(200);
        assertThat(http.chat("sk-sluice-demo-pro").status()).isEqualTo(200);
        // A pro key this replica never served: it can only be known from the refreshed copy of the key hashes.
        TestTenants.Created neverSeen = TestTenants.create(tenants, "fault", "pro");
        RedisTenantStore store = (RedisTenantStore) tenants;
        await().atMost(Duration.ofSeconds(10)).until(() -> store.knows(ApiKeys.sha256Hex(neverSeen.key())));

        REDIS.pause();
        List<FaultHttp.Answer> free = new ArrayList<>();
        List<FaultHttp.Answer> pro = new ArrayList<>();
        List<FaultHttp.Answer> health = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                free.add(http.chat("sk-sluice-demo-free"));
                pro.add(http.chat("sk-sluice-demo-pro"));
                health.add(http.get("/actuator/health"));
                health.add(http.get("/actuator/health/readiness"));
            }
            pro.add(http.chat(neverSeen.key()));
            // A generated answer whose id cannot be recorded passes (it is nobody's): the tenant paid for its text.
            pro.add(http.response("sk-sluice-demo-pro"));
            FaultHttp.Answer unknown = http.chat(ApiKeys.generate());
            assertThat(unknown.status())
                    .as("a key never seen cannot be checked: refused briefly")
                    .isEqualTo(503);
            assertThat(unknown.millis()).isLessThan(BOUND_MS);
        } finally {
            REDIS.resume();
        }
        for (FaultHttp.Answer a : free) {
            assertThat(a.status()).as("free fails closed: %s", a.body()).isEqualTo(503);
            assertThat(a.body())
                    .contains("\"code\":\"quota_store_unavailable\"")
                    .contains("\"type\":\"server_error\"");
            assertThat(a.retryAfter()).isEqualTo("1");
        }
        for (FaultHttp.Answer a : pro)
            assertThat(a.status()).as("pro fails open: %s", a.body()).isEqualTo(200);
        for (FaultHttp.Answer a : health) {
            assertThat(a.status())
                    .as("health stays 200 (DEGRADED): %s", a.body())
                    .isEqualTo(200);
        }
        assertThat(health.get(1).body()).contains("DEGRADED");
        long max = maxMillis(free, pro, health);
        System.out.printf(
                "Redis paused: %d free, %d pro, %d health calls; slowest %d ms%n",
                free.size(), pro.size(), health.size(), max);
        assertThat(max).as("every call decided within the bound").isLessThan(BOUND_MS);
        assertThat(meters.counter("sluice.store.fallback", "tier", "free", "policy", "fail-closed")
                        .count())
                .isPositive();
        assertThat(meters.counter("sluice.store.fallback", "tier", "pro", "policy", "fail-open")
                        .count())
                .isPositive();

        await().atMost(Duration.ofSeconds(10)).until(state::up);
        assertThat(http.get("/actuator/health/readiness").body()).doesNotContain("DEGRADED");
        assertThat(http.chat("sk-sluice-demo-pro").status()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void redisRestartedEmptyIsSeededAgainWithoutARestart() {
        FaultHttp http = http();
        assertThat(http.chat("sk-sluice-demo-pro").status()).isEqualTo(200);
        double before = meters.counter("sluice.store.reseeded").count();
        REDIS.kill();
        REDIS.start(); // the same port, nothing in it
        long restarted = System.nanoTime();
        // The watch finds the restart by its missing marker and seeds Redis again. A request may be
        // served before that (the provider budget is spent from this replica's slice, and a quota on an
        // empty Redis admits), so wait for the reseed itself, then for service.
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> meters.counter("sluice.store.reseeded").count() == before + 1
                        && http.chat("sk-sluice-demo-free").status() == 200);
        long servedAfterMs = (System.nanoTime() - restarted) / 1_000_000;
        System.out.printf("Redis restarted empty: demo-free served again after %d ms%n", servedAfterMs);
        assertThat(redis.hasKey("sluice:tiers").block(Duration.ofSeconds(2)))
                .as("the tiers document is back")
                .isTrue();
        assertThat(redis.<String, String>opsForHash()
                        .get("sluice:tiers", "version")
                        .block(Duration.ofSeconds(2)))
                .as("at the version in force here, so no replica sees an older one")
                .isEqualTo(Long.toString(reloader.appliedVersion()));
        assertThat(redis.hasKey(RedisWatch.MARKER).block(Duration.ofSeconds(2))).isTrue();
        assertThat(meters.counter("sluice.store.reseeded").count()).isEqualTo(before + 1);
        assertThat(http.chat("sk-sluice-demo-pro").status()).isEqualTo(200);
        assertThat(http.chat("sk-sluice-demo-suspended").status()).isEqualTo(403);
    }

    /**
     * One request at a time as Redis stalls, the first sent before anything has noticed: no
     * request waits on more than one store timeout's worth (the key lookup, the quota, the
     * provider budget's refresh sent just before, the ladder's second ask share one budget, and
     * calls still waiting end when the first one fails). The bound is the product's target, 1 s,
     * for a 500 ms store timeout.
     */
    @Test
    @Order(3)
    void requestsSentOneAfterAnotherAsRedisStallsAreEachDecidedWithinASecond() {
        FaultHttp http = http();
        await().atMost(Duration.ofSeconds(10)).until(state::up);
        // Served just before: their settlements go in the provider budget's next refresh, so one is in flight at the
        // pause.
        assertThat(http.chat("sk-sluice-demo-pro").status()).isEqualTo(200);
        assertThat(http.chat("sk-sluice-demo-free").status()).isEqualTo(200);
        REDIS.pause();
        List<FaultHttp.Answer> pro = new ArrayList<>();
        List<FaultHttp.Answer> free = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                pro.add(http.chat("sk-sluice-demo-pro"));
                free.add(http.chat("sk-sluice-demo-free"));
            }
        } finally {
            REDIS.resume();
        }
        for (FaultHttp.Answer a : pro)
            assertThat(a.status()).as("pro fails open: %s", a.body()).isEqualTo(200);
        for (FaultHttp.Answer a : free)
            assertThat(a.status()).as("free fails closed: %s", a.body()).isEqualTo(503);
        System.out.printf(
                "Redis stalled under sequential requests: pro %s ms, free %s ms%n",
                pro.stream().map(FaultHttp.Answer::millis).toList(),
                free.stream().map(FaultHttp.Answer::millis).toList());
        assertThat(maxMillis(pro, free)).as("each decided within the target").isLessThan(1_000);
        await().atMost(Duration.ofSeconds(10)).until(state::up);
    }

    @SafeVarargs
    static long maxMillis(List<FaultHttp.Answer>... lists) {
        long max = 0;
        for (List<FaultHttp.Answer> l : lists) for (FaultHttp.Answer a : l) max = Math.max(max, a.millis());
        return max;
    }
}
