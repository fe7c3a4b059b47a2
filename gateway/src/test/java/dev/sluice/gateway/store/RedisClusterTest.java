package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.abuse.SamplerLock;
import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestRedisCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/**
 * The gateway on a real three-node Redis Cluster ({@code spring.data.redis.cluster.nodes}):
 * the request path (key, quota script, provider budget, settlement), the admin API (tiers,
 * tenants, keys), a tier's limit, and the abuse side's stores all work with their keys spread
 * over the nodes. A script whose keys were not in one slot would fail here with CROSSSLOT.
 */
class RedisClusterTest {
    static final String USER = "ops";
    static final String PASSWORD = "cluster-test-password";
    /** The fake provider reports 7 tokens of usage: settlement must replace the estimate with it. */
    static final int USED = 7;

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM =
            FakeUpstreamExtension.start((req, res) -> res.header("content-type", "application/json")
                    .sendString(Mono.just("{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[],\"usage\":"
                            + "{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":" + USED + "}}")));

    static TestRedisCluster cluster;
    static GatewayReplica gateway;

    @BeforeAll
    static void start() {
        long t0 = System.nanoTime();
        cluster = TestRedisCluster.start();
        long t1 = System.nanoTime();
        gateway = GatewayReplica.builder()
                .property("spring.data.redis.cluster.nodes", cluster.nodes())
                .upstream(UPSTREAM)
                .properties(
                        "sluice.admin.user=" + USER,
                        "sluice.admin.password=" + PASSWORD,
                        "sluice.tiers.poll-interval=200ms",
                        "sluice.abuse.sampler.enabled=false",
                        // What is under test is the cluster, not the store timeout: a loaded CI box must not fall back.
                        "sluice.store.timeout=10s")
                .start();
        System.out.printf(
                "RedisClusterTest: cluster of 3 up in %d ms (ports %s), gateway in %d ms%n",
                (t1 - t0) / 1_000_000, cluster.ports(), (System.nanoTime() - t1) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) gateway.close();
        if (cluster != null) cluster.close();
    }

    static WebTestClient client() {
        return gateway.client();
    }

    static WebTestClient admin() {
        return gateway.admin(USER, PASSWORD);
    }

    static ReactiveStringRedisTemplate redis() {
        return gateway.bean(ReactiveStringRedisTemplate.class);
    }

    static EntityExchangeResult<String> chat(String key, int maxTokens) {
        return client().post()
                .uri("/v1/chat/completions")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + maxTokens
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .exchange()
                .expectBody(String.class)
                .returnResult();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> tiers() {
        return admin().get()
                .uri("/admin/api/tiers")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    static void createTenant(String id, String tier) {
        admin().post()
                .uri("/admin/api/tenants")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("id", id, "tier", tier))
                .exchange()
                .expectStatus()
                .isCreated();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> issueKey(String tenant) {
        return admin().post()
                .uri("/admin/api/tenants/{id}/keys", tenant)
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    /** The node (by port) that serves a key's slot, from the cluster's own slot map. */
    static int nodeOf(String key) {
        RedisConnectionFactory factory = gateway.bean(RedisConnectionFactory.class);
        try (RedisClusterConnection c = factory.getClusterConnection()) {
            return c.clusterGetNodeForKey(key.getBytes()).getPort();
        }
    }

    @Test
    void theClusterIsRealAndTheGatewayUsesIt() {
        assertThat(gateway.bean(StoreMode.class)).isEqualTo(StoreMode.REDIS);
        // The start-up warm-up (TIME, SCRIPT LOAD) runs on a cluster connection too: the scripts reach every master.
        new RedisQuotaStore(redis()).warmUp().block(Duration.ofSeconds(10));
        assertThat(cluster.ports())
                .allSatisfy(p ->
                        assertThat(TestRedisCluster.info(p)).contains("cluster_state:ok", "cluster_known_nodes:3"));
        // Tenants' keys land on different nodes: the hash tags spread the load, they do not pin it.
        Set<Integer> nodes = IntStream.range(0, 30)
                .mapToObj(i -> nodeOf(RedisQuotaStore.key("t" + i, "minute")))
                .collect(Collectors.toSet());
        assertThat(nodes).hasSize(3);
    }

    @Test
    void theRequestPathAuthenticatesAdmitsDispatchesAndSettlesOnTheCluster() {
        createTenant("cl-path", "free");
        String key = (String) issueKey("cl-path").get("key");

        String budget = RedisProviderBudgetStore.windowKey("default:*"); // the catch-all model budget of tiers.yaml
        long budgetBefore = Long.parseLong(redis().<String, String>opsForHash()
                .get(budget, "T")
                .defaultIfEmpty("0")
                .block());

        EntityExchangeResult<String> first = chat(key, 500);
        assertThat(first.getStatus().value()).as(first.getResponseBody()).isEqualTo(200);
        assertThat(first.getResponseHeaders().getFirst("x-ratelimit-limit-tokens"))
                .isEqualTo("10000");
        assertThat(first.getResponseHeaders().getFirst("x-ratelimit-remaining-requests"))
                .isEqualTo("59");

        // Settlement, each a script on the node of its hash tag: the tenant is charged the 7 tokens the
        // provider reported instead of its estimate; the provider's budget keeps max_tokens (providers
        // count it at admission) with the prompt corrected to the 3 reported, and its slot is given back.
        String minute = RedisQuotaStore.key("cl-path", "minute");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis().<String, String>opsForHash()
                                .get(minute, "T")
                                .block())
                        .isEqualTo(Integer.toString(USED)));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(Long.parseLong(redis().<String, String>opsForHash()
                            .get(budget, "T")
                            .block()))
                    .isEqualTo(budgetBefore + 500 + 3);
            assertThat(redis().opsForZSet()
                            .size(RedisProviderBudgetStore.leasesKey("default:*"))
                            .block())
                    .isZero();
        });
        assertThat(redis().getExpire(minute).block()).isPositive();
        assertThat(redis().getExpire(budget).block()).isPositive();

        EntityExchangeResult<String> second = chat(key, 10);
        assertThat(second.getStatus().value()).isEqualTo(200);
        assertThat(second.getResponseHeaders().getFirst("x-ratelimit-remaining-requests"))
                .isEqualTo("58");
        assertThat(Long.parseLong(second.getResponseHeaders().getFirst("x-ratelimit-remaining-tokens")))
                .as("the first request counts for %d tokens, not its estimate", USED)
                .isGreaterThan(10_000L - USED - 100);

        assertThat(chat("sk-not-a-key", 10).getStatus().value()).isEqualTo(401);
    }

    @Test
    void theAdminApiReplacesTiersAndIssuesAndRevokesKeysAndATiersLimitHolds() {
        Map<String, Object> doc = tiers();
        String yaml = (String) doc.get("yaml");
        long version = ((Number) doc.get("version")).longValue();
        String tiny = "tiers:\n  cluster-tiny:\n    tokens-per-minute: 100000\n    requests-per-minute: 3\n"
                + "    burst-allowance: 1.0\n    priority: 3\n";
        admin().put()
                .uri("/admin/api/tiers")
                .header(HttpHeaders.IF_MATCH, (String) doc.get("etag"))
                .contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml.replaceFirst("(?m)^tiers:\n", tiny))
                .exchange()
                .expectStatus()
                .isOk();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Map<String, Object> now = tiers();
            return ((Number) now.get("version")).longValue() == version + 1
                    && Boolean.TRUE.equals(now.get("appliedHere"));
        });
        // A stale If-Match is refused: the conditional write is one script on the document's node.
        admin().put()
                .uri("/admin/api/tiers")
                .header(HttpHeaders.IF_MATCH, (String) doc.get("etag"))
                .contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue(yaml)
                .exchange()
                .expectStatus()
                .isEqualTo(412);

        createTenant("cl-tiny", "cluster-tiny");
        Map<String, Object> issued = issueKey("cl-tiny");
        String key = (String) issued.get("key");
        admin().get()
                .uri("/admin/api/tenants/cl-tiny/keys")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.keys[0].id")
                .isEqualTo(issued.get("id"));
        admin().get()
                .uri("/admin/api/tenants")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("cl-tiny"));

        for (int i = 0; i < 3; i++) {
            EntityExchangeResult<String> r = chat(key, 10);
            assertThat(r.getStatus().value())
                    .as("request %d: %s", i + 1, r.getResponseBody())
                    .isEqualTo(200);
        }
        EntityExchangeResult<String> refused = chat(key, 10);
        assertThat(refused.getStatus().value()).isEqualTo(429);
        assertThat(refused.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER))
                .matches("[1-9][0-9]*");
        assertThat(refused.getResponseBody()).contains("\"code\":\"rate_limit_exceeded\"");

        admin().delete()
                .uri("/admin/api/tenants/cl-tiny/keys/{k}", issued.get("id"))
                .exchange()
                .expectStatus()
                .isNoContent();
        assertThat(chat(key, 10).getStatus().value()).isEqualTo(401);
    }

    @Test
    void theAbuseSidesStoresWorkOnTheCluster() {
        TenantActivity activity = gateway.bean(TenantActivity.class);
        UsageHistory history = gateway.bean(UsageHistory.class);
        FlagStore flags = gateway.bean(FlagStore.class);
        SamplerLock lock = gateway.bean(SamplerLock.class);
        long minute = (System.currentTimeMillis() / 60_000L) * 60_000L;

        activity.requestSeen("cl-abuse", "free");
        activity.stageTaken("cl-abuse", "downgrade");
        activity.flush().block(Duration.ofSeconds(10));
        Map<String, String> seen = new HashMap<>(
                activity.minute(minute).block(Duration.ofSeconds(10)).tierByTenant());
        seen.putAll(activity.minute(minute + 60_000L)
                .block(Duration.ofSeconds(10))
                .tierByTenant()); // in case a minute just ended
        assertThat(seen).containsEntry("cl-abuse", "free");

        assertThat(lock.tryAcquire(minute, "replica-a").block()).isTrue();
        assertThat(lock.tryAcquire(minute, "replica-b").block()).isFalse();

        history.append("cl-abuse", new UsageSample(minute, "free", 9000, 10, 0.9, "minute", Map.of(), null), 60)
                .block();
        assertThat(history.since("cl-abuse", minute - 60_000L).collectList().block())
                .hasSize(1);

        Instant now = Instant.ofEpochMilli(minute);
        Flag flag = new Flag(
                "cl-flag-1",
                "cl-abuse",
                "free",
                now,
                now.minusSeconds(900),
                15,
                List.of(),
                FlagStatus.OPEN,
                List.of(),
                null);
        assertThat(flags.openIfNone(flag).block()).isNotNull();
        admin().get()
                .uri("/admin/api/flags")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("cl-flag-1"));
        admin().post()
                .uri("/admin/api/flags/cl-flag-1/review")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("action", "dismiss", "note", "cluster test"))
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(flags.find("cl-flag-1").block().status()).isEqualTo(FlagStatus.DISMISSED);
        admin().get().uri("/admin/api/usage").exchange().expectStatus().isOk();
    }
}
