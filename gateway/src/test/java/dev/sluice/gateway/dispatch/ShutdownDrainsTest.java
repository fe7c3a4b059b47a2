package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.gateway.testsupport.TestTenants;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A gateway on a real Redis is shut down (as SIGTERM does: the context closes) with streams in
 * flight and requests waiting in its dispatch queue. Every stream completes; every waiting
 * request is answered 503 gateway_busy with Retry-After at once and its quota refunded; every
 * stream's settlement reaches Redis; and no provider lease is left in Redis.
 */
class ShutdownDrainsTest {
    static final int CHUNKS = 20;
    static final String USAGE = "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}\n\n";
    static final AtomicInteger STARTED = new AtomicInteger();
    /** A stream of 20 chunks 100 ms apart (2 s): long enough to be cut by a careless shutdown. */
    @RegisterExtension
    static final FakeUpstreamExtension UPSTREAM = FakeUpstreamExtension.start((req, res) -> {
        STARTED.incrementAndGet();
        Flux<String> chunks = Flux.interval(Duration.ofMillis(100))
                .take(CHUNKS)
                .map(i -> "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"content\":\"w" + i + " \"}}]}\n\n");
        if (!req.body().contains("\"stream\":true")) {
            return res.header("content-type", "application/json")
                    .sendString(Mono.just("{\"id\":\"x\",\"usage\":"
                            + "{\"prompt_tokens\":10,\"completion_tokens\":20,\"total_tokens\":30}}"));
        }
        return res.header("content-type", "text/event-stream")
                .sendString(chunks.concatWith(Flux.just(USAGE, "data: [DONE]\n\n")));
    });

    /**
     * A Redis database of its own: in the shared one, another test's tiers document (200 in flight)
     * would win over this test's file (4), and the test would run 194 streams instead of 3.
     * (Taken elsewhere: 7 by AdminReplicasTest, 11 by TwoReplicasShareTheProviderTest.)
     */
    static final int DATABASE = 9;

    @Test
    void shutdownFinishesStreamsAnswersTheQueueAndLeavesNoLease() throws Exception {
        String provider = "drain-" + UUID.randomUUID().toString().substring(0, 8);
        GatewayReplica gateway = gateway(provider);
        int port = gateway.port();
        ConfigRegistry config = gateway.bean(ConfigRegistry.class);
        ProviderSettings settings = config.current().providers().get(0);
        String budget = ProviderBudgetStore.key(settings, "gpt-4o");
        int slots = BudgetLimits.of(settings, "gpt-4o", Duration.ofMinutes(10)).maxInFlight();
        List<WindowLimit> proWindows =
                config.current().tier("pro").orElseThrow().windows();
        TenantStore tenants = gateway.bean(TenantStore.class);
        TestTenants.Created streamer = TestTenants.create(tenants, "drain-streams", "pro");
        TestTenants.Created waiter = TestTenants.create(tenants, "drain-queued", "pro");
        MeterRegistry meters = gateway.bean(MeterRegistry.class);

        List<CompletableFuture<String>> streams = new ArrayList<>();
        for (int i = 0; i < slots; i++) streams.add(stream(port, streamer.key()));
        await().atMost(Duration.ofSeconds(10)).until(() -> STARTED.get() == slots);
        List<CompletableFuture<ResponseEntity<String>>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) queued.add(post(port, waiter.key()));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Gauge depth =
                    meters.find("sluice.queue.depth").tag("budget", budget).gauge();
            return depth != null && depth.value() == 3;
        });

        long closeStart = System.nanoTime();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(gateway::close);
        List<ResponseEntity<String>> refused = new ArrayList<>();
        for (CompletableFuture<ResponseEntity<String>> q : queued) refused.add(q.get());
        long refusedAfterMs = (System.nanoTime() - closeStart) / 1_000_000;
        List<String> bodies = new ArrayList<>();
        for (CompletableFuture<String> s : streams) bodies.add(s.get());
        closed.get();
        long closedAfterMs = (System.nanoTime() - closeStart) / 1_000_000;

        assertThat(bodies).allSatisfy(b -> {
            assertThat(b)
                    .as("the whole stream")
                    .contains("w" + (CHUNKS - 1) + " ")
                    .endsWith("data: [DONE]\n\n");
        });
        assertThat(refused).allSatisfy(r -> {
            assertThat(r.getStatusCode().value()).as(r.getBody()).isEqualTo(503);
            assertThat(r.getBody()).contains("\"code\":\"gateway_busy\"");
            assertThat(r.getHeaders().getFirst("Retry-After")).isNotBlank();
        });
        assertThat(refusedAfterMs)
                .as("answered at once, not after their max-wait (60 s)")
                .isLessThan(5_000);

        // After the context is gone: Redis as the next replica finds it.
        long leases = TestRedisTemplates.template(DATABASE)
                .opsForZSet()
                .size(RedisProviderBudgetStore.leasesKey(budget))
                .block(Duration.ofSeconds(5));
        assertThat(leases).as("provider leases left in Redis").isZero();
        RedisQuotaStore quota = new RedisQuotaStore(TestRedisTemplates.template(DATABASE));
        WindowUsage streamed = quota.peek(streamer.id(), proWindows)
                .block(Duration.ofSeconds(5))
                .get(0);
        assertThat(streamed.usedTokens())
                .as("every stream settled to its usage")
                .isEqualTo(30L * slots);
        WindowUsage refunded =
                quota.peek(waiter.id(), proWindows).block(Duration.ofSeconds(5)).get(0);
        assertThat(refunded.usedTokens()).as("the queued requests refunded").isZero();
        assertThat(refunded.usedRequests()).isZero();
        System.out.printf(
                "[drain] %d streams in flight, 3 queued: queue answered 503 in %d ms, context closed in %d ms, "
                        + "%d leases left%n",
                slots, refusedAfterMs, closedAfterMs, leases);
    }

    static GatewayReplica gateway(String provider) throws Exception {
        String yaml = Files.readString(Path.of("../tiers.yaml"));
        String tiers = yaml.replace("  - name: default", "  - name: " + provider)
                .replace("max-in-flight: 200", "max-in-flight: 4");
        assertThat(tiers).contains("name: " + provider).contains("max-in-flight: 4");
        Path file = Files.createTempFile("tiers-drain", ".yaml");
        Files.writeString(file, tiers);
        file.toFile().deleteOnExit();
        return GatewayReplica.builder()
                .redis(DATABASE)
                .upstream(UPSTREAM)
                .property("sluice.tiers.path", file)
                .property("sluice.store.timeout", "10s") // a loaded CI box must not push pro onto its local fallback
                .start();
    }

    static CompletableFuture<String> stream(int port, String key) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"model\":\"gpt-4o\",\"max_tokens\":100,\"stream\":true,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"stream\"}]}")
                .exchangeToFlux(r -> r.bodyToFlux(DataBuffer.class))
                .map(b -> {
                    String s = b.toString(StandardCharsets.UTF_8);
                    DataBufferUtils.release(b);
                    return s;
                })
                .collectList()
                .map(parts -> String.join("", parts))
                .toFuture();
    }

    static CompletableFuture<ResponseEntity<String>> post(int port, String key) {
        return WebClient.create("http://127.0.0.1:" + port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        "{\"model\":\"gpt-4o\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"wait\"}]}")
                .exchangeToMono(r -> r.toEntity(String.class))
                .toFuture();
    }
}
