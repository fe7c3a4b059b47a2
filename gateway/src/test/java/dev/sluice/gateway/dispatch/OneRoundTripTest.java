package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.RedisGatewayTest;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.gateway.testsupport.TestTenants;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * The budget of Redis work (docs/performance.md), on the whole request path against a real Redis: a served call
 * costs its tenant's admission, and the provider budget's slice calls and the batched settlements
 * together cost well under one more; and every call still ends settled to its usage. The batches
 * go by size here (a second's wait, 64 a batch): how many calls share a timed batch depends on the
 * machine's pace, which a test on shared cores does not control; the benchmark measures that.
 */
@RedisGatewayTest(properties = "sluice.store.batch.every=1s")
class OneRoundTripTest {
    static final String ANSWER =
            "{\"id\":\"x\",\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}";

    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.answering(ANSWER);

    @DynamicPropertySource
    static void upstream(DynamicPropertyRegistry registry) {
        registry.add("sluice.provider.url", UPSTREAM::baseUrl);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    TenantStore tenants;

    @Autowired
    ConfigRegistry config;

    @Test
    void aServedCallCostsAtMostOneAndAHalfScriptCallsAndEndsSettled() {
        TestTenants.Created tenant = TestTenants.create(tenants, "one-trip", "enterprise");
        WebClient client = WebClient.create("http://127.0.0.1:" + port);
        String body = "{\"model\":\"gpt-4o\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        // Warm: the first calls size the slice from nothing.
        call(client, tenant, body, 40, 4);

        long before = evalsha();
        int n = 400;
        call(client, tenant, body, n, 8);
        List<WindowLimit> windows =
                config.current().tier("enterprise").orElseThrow().windows();
        RedisQuotaStore quota = new RedisQuotaStore(TestRedisTemplates.template());
        // The batches waiting when the last answer came are part of these calls' cost: counted once sent.
        AtomicInteger peeks = new AtomicInteger();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            peeks.incrementAndGet(); // a peek is a script call too: not the calls' cost
            assertThat(quota.peek(tenant.id(), windows)
                            .block(Duration.ofSeconds(5))
                            .get(0)
                            .usedTokens())
                    .as("every call settled to its 11 tokens")
                    .isEqualTo(11L * (n + 40));
        });
        long perHundred = (evalsha() - before - peeks.get()) * 100 / n;
        System.out.printf("[one-trip] %d calls: %.2f EVALSHA per call%n", n, perHundred / 100.0);
        assertThat(perHundred).as("EVALSHA per 100 calls").isLessThanOrEqualTo(125);
    }

    private static void call(WebClient client, TestTenants.Created tenant, String body, int n, int concurrency) {
        Flux.range(0, n)
                .flatMap(
                        i -> client.post()
                                .uri("/v1/chat/completions")
                                .header("Authorization", "Bearer " + tenant.key())
                                .header("Content-Type", "application/json")
                                .bodyValue(body)
                                .retrieve()
                                .toBodilessEntity(),
                        concurrency)
                .doOnNext(r -> assertThat(r.getStatusCode().value()).isEqualTo(200))
                .blockLast(Duration.ofSeconds(60));
    }

    private static long evalsha() {
        String info = TestRedisTemplates.template()
                .getConnectionFactory()
                .getReactiveConnection()
                .serverCommands()
                .info("commandstats")
                .block(Duration.ofSeconds(5))
                .getProperty("cmdstat_evalsha", "calls=0,");
        return Long.parseLong(info.substring(info.indexOf("calls=") + 6, info.indexOf(',', info.indexOf("calls="))));
    }
}
