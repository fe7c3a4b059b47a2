package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderClock;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.gateway.testsupport.TestTenants;
import dev.sluice.gateway.testsupport.TestTiers;
import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.LabStats;
import dev.sluice.lab.provider.PromptCount;
import dev.sluice.lab.provider.ProviderSimulator;
import dev.sluice.lab.provider.ProviderWays;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small primary in front of a large secondary on the route {@code [primary, secondary]}, both
 * lab providers that count a prompt as characters / 4 (about 10 % more than Sluice's estimate of a
 * page), charge prompt + max_tokens when a call arrives and keep it for 60 s from then, and, as
 * many OpenAI-compatible servers, do not state their processing time: an answer proves only that
 * the call was counted before it came back. The gateway, its budgets and both providers run on one
 * clock the test moves ({@link FakeClock}).
 *
 * <p>The gateway's own time between admitting a call and sending it is the test's to set: a
 * filter right after the dispatch stage holds the calls while the clock moves on, as a gateway
 * whose event loops are busy with a burst holds them. The first burst fills the primary's minute
 * and spills to the secondary; its calls reach the primary 1.5 s after the gateway admitted them.
 * At 60.8 s the primary's minute still holds them; it frees them at 61.5 s. Charged from the
 * admission, the gateway's minute freed them at 60.3 s and sent the next page to the primary: a
 * 429. Settled as sent, they stay in the gateway's minute until 62 s (the slot of their sending):
 * the page waits for it, and the primary serves it once both minutes have turned.
 */
class SmallPrimaryLargeSecondaryTest {
    /** A slot boundary plus 700 ms: a charge stamped at admission + 250 ms falls in the slot the clock is in. */
    static final long T0 = 1_800_000_000_700L;

    static final long SENT_LATE_MS = 1_500;
    static final int MAX_TOKENS = 200;
    /** Seed 000's page: Sluice estimates ~611 prompt tokens, the providers count 672 (its 2,688 characters / 4). */
    static final String PAGE =
            "Page 1 of book 1 by tenant-1. " + "The quick brown fox jumps over the lazy dog. ".repeat(59);

    static final ProviderWays CHARS_4_NO_PROCESSING_TIME = ProviderWays.DEFAULT
            .withPromptCount(new PromptCount(PromptCount.Method.CHARS, 4.0, 1.0, 0))
            .withStatesProcessingTime(false);

    final FakeClock clock = new FakeClock(T0);
    final Hold hold = new Hold();
    LabProviderServer primary;
    LabProviderServer secondary;
    GatewayReplica gateway;
    String key;

    /** Holds every call between the dispatch stage and the HTTP client while closed. */
    static final class Hold implements GlobalFilter, Ordered {
        final AtomicInteger held = new AtomicInteger();
        volatile Sinks.Empty<Void> gate;

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
            Sinks.Empty<Void> g = gate;
            if (g == null) return chain.filter(exchange);
            held.incrementAndGet();
            return g.asMono().then(Mono.defer(() -> chain.filter(exchange)));
        }

        @Override
        public int getOrder() {
            return FilterOrder.DISPATCH + 1;
        }
    }

    LabProviderServer provider(int tokensPerMinute, int inFlight) {
        LabLimits limits = LabLimits.DEFAULTS
                .withRequestsPerMinute(1_000)
                .withTokensPerMinute(tokensPerMinute)
                .withMaxInFlight(inFlight)
                .withLatency(Duration.ofMillis(1))
                .withLatencyJitter(0);
        LabProviderServer p = new LabProviderServer(
                new ProviderSimulator(limits, new SplittableRandom(1)), 0, clock, 1, CHARS_4_NO_PROCESSING_TIME);
        p.start();
        return p;
    }

    @BeforeEach
    void start() throws Exception {
        // 3,000 tokens a minute: three pages at the gateway's conservative start (964 each, under 2,910 with
        // the headroom), and as the provider counts them (872 each) no fourth.
        primary = provider(3_000, 10);
        secondary = provider(1_000_000, 200);
        String tiers =
                TestTiers.written("small-primary/tiers.yaml", """
                tiers:
                  enterprise: {tokens-per-minute: 10000000, requests-per-minute: 100000, priority: 1}
                providers:
                  - name: primary
                    base-url: %s
                    headroom: 0.97
                    models:
                      gpt-4o-mini: {requests-per-minute: 1000, tokens-per-minute: 3000, max-in-flight: 10}
                  - name: secondary
                    base-url: %s
                    headroom: 0.97
                    models:
                      gpt-4o-mini: {requests-per-minute: 1000, tokens-per-minute: 1000000, max-in-flight: 200}
                routes:
                  gpt-4o-mini: [primary, secondary]
                """.formatted(primary.baseUrl(), secondary.baseUrl()));
        gateway = GatewayReplica.builder()
                .property("sluice.tiers.path", tiers)
                .bean(ProviderClock.class, () -> new ProviderClock(clock))
                .bean(Hold.class, () -> hold)
                .properties("spring.main.banner-mode=off", "server.shutdown=immediate")
                .start();
        key = TestTenants.create(gateway.bean(TenantStore.class), "route", "enterprise")
                .key();
    }

    @AfterEach
    void stop() {
        Sinks.Empty<Void> gate = hold.gate;
        if (gate != null) gate.tryEmitEmpty(); // a failed test leaves no call held for the shutdown to wait on
        if (gateway != null) gateway.close();
        primary.stop();
        secondary.stop();
    }

    @Test
    void aCallTheGatewaySentLateLeavesThePrimarysMinuteNoSoonerThanThePrimarysOwn() {
        // The first burst: three pages fill the primary's minute, a fourth spills to the secondary (its first call).
        // The gateway holds them 1.5 s between admitting and sending them.
        hold.gate = Sinks.empty();
        List<Mono<ResponseEntity<String>>> burst =
                IntStream.range(0, 4).mapToObj(i -> send().cache()).toList();
        burst.forEach(Mono::subscribe);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(hold.held.get()).as("calls held").isEqualTo(4));
        clock.advance(SENT_LATE_MS);
        Sinks.Empty<Void> gate = hold.gate;
        hold.gate = null;
        gate.tryEmitEmpty();
        List<ResponseEntity<String>> first = Flux.concat(burst).collectList().block(Duration.ofSeconds(30));
        assertThat(first).allSatisfy(r -> assertThat(r.getStatusCode().value()).isEqualTo(200));
        assertThat(first.stream().map(SmallPrimaryLargeSecondaryTest::provider))
                .containsExactlyInAnyOrder("primary", "primary", "primary", "secondary");
        await().atMost(Duration.ofSeconds(30)).until(() -> inFlight("primary") == 0 && inFlight("secondary") == 0);
        long counted = first.stream()
                .filter(r -> "primary".equals(provider(r)))
                .mapToLong(SmallPrimaryLargeSecondaryTest::tokens)
                .sum();
        assertThat(counted)
                .as("three pages as the primary counts them, more than Sluice estimates")
                .isGreaterThan(3 * (611 + MAX_TOKENS));
        assertThat(primary.stats().tokensInWindow()).as("the primary's minute").isEqualTo(counted);

        // 60.8 s after the admissions, 59.3 s after the calls reached the primary: its minute still holds them,
        // and so must the gateway's. A page sent now waits for that minute (or goes to the secondary); it must not
        // reach the primary before its minute has turned.
        clock.set(T0 + 60_800);
        long heldAtTheTurn = budget("primary").usedTokens();
        long received = primary.stats().received() + secondary.stats().received();
        Mono<ResponseEntity<String>> atTheTurn = send().cache();
        atTheTurn.subscribe();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> waiting("primary") + waiting("secondary") == 1
                        || primary.stats().received() + secondary.stats().received() > received);
        // The primary's own minute turns at 61.5 s, the gateway's at 62 s (the slot of the call's sending).
        clock.set(T0 + 62_400);
        ResponseEntity<String> served = atTheTurn.block(Duration.ofSeconds(30));
        assertThat(served.getStatusCode().value()).isEqualTo(200);
        ResponseEntity<String> after = send().block(Duration.ofSeconds(30));
        assertThat(after.getStatusCode().value()).isEqualTo(200);

        for (LabProviderServer p : List.of(primary, secondary)) {
            LabStats s = p.stats();
            assertThat(s.rejected429()).as("429s at %s", p.baseUrl()).isZero();
            assertThat(s.rejected503()).as("503s at %s", p.baseUrl()).isZero();
        }
        assertThat(List.of(provider(served), provider(after)))
                .as("the primary serves again once its minute has turned")
                .contains("primary");
        assertThat(heldAtTheTurn)
                .as("the gateway's minute of the primary at 60.8 s: the three calls, as the primary counted them")
                .isEqualTo(counted);
    }

    Mono<ResponseEntity<String>> send() {
        String body = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":" + MAX_TOKENS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + PAGE + "\"}]}";
        return WebClient.create(gateway.baseUrl())
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class));
    }

    static long tokens(ResponseEntity<String> answer) {
        return JsonMapper.shared()
                .readTree(answer.getBody())
                .path("usage")
                .path("total_tokens")
                .asLong();
    }

    static String provider(ResponseEntity<String> answer) {
        return answer.getHeaders().getFirst(DispatchFilter.PROVIDER_HEADER);
    }

    ProviderSettings settings(String name) {
        return gateway.bean(ConfigRegistry.class).current().providers().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /** The gateway's budget of {@code name} for gpt-4o-mini, as its store has it now. */
    BudgetSnapshot budget(String name) {
        return gateway.bean(ProviderBudgetStore.class)
                .snapshot(name + ":gpt-4o-mini", BudgetLimits.of(settings(name), "gpt-4o-mini", Duration.ofMinutes(10)))
                .block(Duration.ofSeconds(5));
    }

    long inFlight(String name) {
        return budget(name).inFlight();
    }

    /** Requests waiting in the gateway's line for {@code name}. */
    int waiting(String name) {
        return gateway.bean(Dispatchers.class)
                .forModel(settings(name), "gpt-4o-mini")
                .depth();
    }
}
