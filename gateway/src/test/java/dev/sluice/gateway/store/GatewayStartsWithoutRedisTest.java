package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.RedisProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Redis is configured but not running when the gateway starts (before: it exited after about
 * 10 s). It starts, serves each tier's redis-down policy, and seeds Redis once Redis appears.
 */
@GatewayTest(
        properties = {"sluice.demo.tenants=true", "sluice.store.timeout=500ms", "sluice.abuse.sampler.enabled=false"})
class GatewayStartsWithoutRedisTest {
    static final RedisProcess REDIS = RedisProcess.notStarted();

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
    ReactiveStringRedisTemplate redis;

    @Autowired
    StoreState state;

    @Test
    void startsWithRedisDownServesEachTiersPolicyAndSeedsRedisWhenItAppears() {
        FaultHttp http = new FaultHttp(port);
        assertThat(state.up()).isFalse();
        // The process's first calls pay for class loading and JIT (2 s seen on a loaded machine): not what is measured.
        http.get("/actuator/health");
        http.chat("sk-sluice-demo-enterprise");
        FaultHttp.Answer readiness = http.get("/actuator/health/readiness");
        assertThat(readiness.status()).isEqualTo(200);
        assertThat(readiness.body()).contains("DEGRADED");
        FaultHttp.Answer pro = http.chat("sk-sluice-demo-pro");
        FaultHttp.Answer free = http.chat("sk-sluice-demo-free");
        FaultHttp.Answer suspended = http.chat("sk-sluice-demo-suspended");
        assertThat(pro.status()).as("pro fails open: %s", pro.body()).isEqualTo(200);
        assertThat(free.status()).as("free fails closed: %s", free.body()).isEqualTo(503);
        assertThat(free.body()).contains("quota_store_unavailable");
        assertThat(suspended.status()).isEqualTo(403);
        System.out.printf(
                "Started without Redis: readiness %d ms, pro %d ms, free %d ms, suspended %d ms%n",
                readiness.millis(), pro.millis(), free.millis(), suspended.millis());
        for (FaultHttp.Answer a : new FaultHttp.Answer[] {readiness, pro, free, suspended}) {
            assertThat(a.millis()).isLessThan(RedisFaultsTest.BOUND_MS);
        }

        REDIS.start();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> http.chat("sk-sluice-demo-free").status() == 200);
        assertThat(redis.hasKey("sluice:tiers").block(Duration.ofSeconds(2))).isTrue();
        assertThat(redis.hasKey("sluice:apikey:" + ApiKeys.sha256Hex("sk-sluice-demo-pro"))
                        .block(Duration.ofSeconds(2)))
                .isTrue();
        assertThat(http.get("/actuator/health/readiness").body()).doesNotContain("DEGRADED");
    }
}
