package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Two gateway instances on one Redis, as two replicas: keys issued on one work on the other
 * at once, and a tier edit on one is in force on the other within seconds. Redis database 7
 * keeps this test's tiers document apart from other tests on the same server.
 */
class AdminReplicasTest {
    static final int DATABASE = 7;
    static final String CHAT = AdminApiTest.CHAT;
    static GatewayReplica a;
    static GatewayReplica b;
    static ReactiveStringRedisTemplate redis;

    @BeforeAll
    static void start() {
        redis = TestRedisTemplates.flushed(DATABASE);
        a = replica();
        b = replica();
    }

    /**
     * Two replicas in one JVM share Reactor Netty's global event loops: closing the first once cut
     * a connection of the second mid-answer (a clean-clone CI run), and the second's graceful
     * shutdown then waited its whole 120 s phase for a request that could no longer end, failing
     * the class on {@link #stop}'s timeout. Separate processes (production) do not share them; here
     * the phase is bounded instead.
     */
    static GatewayReplica replica() {
        return GatewayReplica.builder()
                .redis(DATABASE)
                .properties(
                        "sluice.lab.latency=20ms",
                        "sluice.admin.user=ops",
                        "sluice.admin.password=pw-for-replicas",
                        "sluice.tiers.poll-interval=500ms",
                        "sluice.abuse.sampler.enabled=false",
                        "spring.lifecycle.timeout-per-shutdown-phase=10s")
                .start();
    }

    @AfterAll
    static void stop() {
        if (b != null) b.close();
        if (a != null) a.close();
    }

    static WebTestClient admin(GatewayReplica replica) {
        return replica.admin("ops", "pw-for-replicas");
    }

    static int chat(GatewayReplica ctx, String key) {
        return ctx.client()
                .post()
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
    static Map<String, Object> tiers(GatewayReplica ctx) {
        return admin(ctx)
                .get()
                .uri("/admin/api/tiers")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    static String put(GatewayReplica ctx, String etag, String yaml) {
        return admin(ctx)
                .put()
                .uri("/admin/api/tiers")
                .header(HttpHeaders.IF_MATCH, etag)
                .contentType(AdminRequests.YAML)
                .bodyValue(yaml)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseHeaders()
                .getETag();
    }

    @Test
    void aKeyIssuedOnOneReplicaWorksOnTheOtherAtOnceAndItsRevocationToo() {
        admin(a).post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", "shared-1", "tier", "pro"))
                .exchange()
                .expectStatus()
                .isCreated();
        @SuppressWarnings("unchecked")
        Map<String, Object> issued = admin(a).post()
                .uri("/admin/api/tenants/shared-1/keys")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        String key = (String) issued.get("key");
        assertThat(chat(b, key)).isEqualTo(200);
        admin(b).get()
                .uri("/admin/api/tenants/shared-1/keys")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.keys[0].id")
                .isEqualTo(issued.get("id"));
        admin(b).delete()
                .uri("/admin/api/tenants/shared-1/keys/{k}", issued.get("id"))
                .exchange()
                .expectStatus()
                .isNoContent();
        assertThat(chat(a, key)).isEqualTo(401);
    }

    @Test
    void aTierEditOnOneReplicaIsEnforcedByTheOtherWithinSeconds() {
        admin(a).post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", "shared-2", "tier", "free"))
                .exchange()
                .expectStatus()
                .isCreated();
        String key = (String) admin(a).post()
                .uri("/admin/api/tenants/shared-2/keys")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody()
                .get("key");
        assertThat(chat(b, key)).isEqualTo(200);

        Map<String, Object> doc = tiers(a);
        String original = (String) doc.get("yaml");
        String etag = put(
                a, (String) doc.get("etag"), original.replace("tokens-per-minute: 10000\n", "tokens-per-minute: 30\n"));
        long version = ((Number) tiers(a).get("version")).longValue();
        try {
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        Map<String, Object> seen = tiers(b);
                        assertThat(((Number) seen.get("version")).longValue()).isEqualTo(version);
                        assertThat(seen.get("appliedHere")).isEqualTo(true);
                    });
            assertThat(chat(b, key)).isEqualTo(429);
        } finally {
            put(b, etag, original);
        }
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Boolean.TRUE.equals(tiers(a).get("appliedHere"))
                        && ((Number) tiers(a).get("version")).longValue() == version + 1);
    }

    @Test
    void aBadDocumentInTheStoreKeepsTheLastGoodConfigAndIsCounted() {
        Map<String, Object> doc = tiers(a);
        long version = ((Number) doc.get("version")).longValue();
        String original = (String) doc.get("yaml");
        // Written behind the API's back (an older replica, a hand edit in redis-cli): every replica refuses it.
        redis.opsForHash()
                .putAll(
                        "sluice:tiers",
                        Map.of("yaml", "tiers: [", "version", Long.toString(version + 1), "updated-by", "redis-cli"))
                .block();
        MeterRegistry meters = b.bean(MeterRegistry.class);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    Counter c = meters.find("sluice.config.reload")
                            .tag("result", "invalid")
                            .counter();
                    return c != null && c.count() >= 1;
                });
        Map<String, Object> seen = tiers(b);
        assertThat(seen.get("appliedHere")).isEqualTo(false);
        assertThat(seen.get("config")).isNull();
        assertThat(chat(b, "sk-sluice-demo-pro")).isEqualTo(200); // still served, on the last good config

        put(a, (String) seen.get("etag"), original); // the API can replace it with a good one
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Boolean.TRUE.equals(tiers(b).get("appliedHere")));
    }
}
