package dev.sluice.gateway.degrade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryTenantActivity;
import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaFilter;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaRefusals;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.SpendLimit;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.Tenant;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The quota and the ladder share the request's store budget. Redis answers the first ask slowly
 * (a refusal that fits shortly, so the ladder holds the request), then stalls: the second ask
 * waits only what the first left of the budget, not a store timeout of its own, and the tier's
 * Redis-down policy then decides. The hold itself is not store time. Before the budget each ask
 * waited its own 500 ms: 400 + hold + 500 of store waits.
 */
class SecondAskWithinTheBudgetTest {
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final Duration BUDGET = Duration.ofMillis(750);
    static final long FIRST_ANSWER_MS = 400;

    final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
    final FakeClock clock = new FakeClock(1_900_000_000_000L);
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final StoreState state = new StoreState(true, clock::millis);
    final AtomicInteger asks = new AtomicInteger();
    final SluiceConfig config = shipped();

    /** Answers the first ask after 400 ms with a refusal that fits 100 ms later; never answers again (Redis stalled). */
    final QuotaStore redis = new QuotaStore() {
        @Override
        public Mono<QuotaDecision> acquire(
                String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
            if (asks.getAndIncrement() > 0) return Mono.never();
            WindowUsage minute = new WindowUsage("minute", 60, 10_000, 60, 10_000, 3, 100);
            return Mono.delay(Duration.ofMillis(FIRST_ANSWER_MS))
                    .thenReturn(new QuotaDecision(false, clock.millis(), 100, "minute", List.of(minute)));
        }

        @Override
        public Mono<Void> adjustAll(
                String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
            return Mono.never();
        }

        @Override
        public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
            return Mono.never();
        }
    };

    final QuotaLimiter limiter =
            new QuotaLimiter(redis, new InMemoryQuotaStore(clock), TIMEOUT, meters, state, null, clock, clock);
    final InMemoryTenantActivity activity = new InMemoryTenantActivity(clock);
    final StageCounter stages =
            new StageCounter(meters, activity, config.tiers().keySet());
    final QuotaRefusals refusals =
            new QuotaRefusals(stages, new EnforcementAccuracy(new SimpleMeterRegistry(), Clock.systemUTC()));
    final QuotaFilter quota = new QuotaFilter(limiter, refusals);
    final LadderFilter ladder = new LadderFilter(
            new DegradationLadder(new SplittableRandom(25)),
            limiter,
            refusals,
            new RequestRewriter(),
            stages,
            activity,
            meters);

    @AfterEach
    void realTime() {
        VirtualTimeScheduler.reset();
    }

    static SluiceConfig shipped() {
        try {
            return TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What became of one request through the quota and the ladder. */
    final class Decided {
        final MockServerWebExchange exchange = MockServerWebExchange.from(
                MockServerHttpRequest.post("/v1/chat/completions").build());
        final DecisionBudget budget = DecisionBudget.of(BUDGET, () -> time.now(TimeUnit.NANOSECONDS));
        final AtomicBoolean sent = new AtomicBoolean();
        long decidedAtMs = -1;

        Decided(String tierName) {
            Tier tier = config.tier(tierName).orElseThrow();
            SluiceAttributes.TENANT.set(exchange, new Tenant("t-" + tierName, tierName, false));
            SluiceAttributes.TIER.set(exchange, tier);
            SluiceAttributes.CONFIG.set(exchange, config);
            SluiceAttributes.OPTIONS.set(
                    exchange, new RequestOptions(false, RequestOptions.DEFAULT_MAX_WAIT_MS, false));
            SluiceAttributes.DECISION_BUDGET.set(exchange, budget);
            RequestEstimate.ATTRIBUTE.set(
                    exchange, new RequestEstimate(Endpoint.CHAT, "gpt-4o-mini", 10, 16, false, false));
            quota.filter(exchange, ex -> ladder.filter(ex, admitted -> Mono.fromRunnable(() -> sent.set(true))))
                    .subscribe(null, e -> {}, () -> decidedAtMs = time.now(TimeUnit.MILLISECONDS));
        }

        long heldMs() {
            String degraded = exchange.getResponse().getHeaders().getFirst(LadderFilter.DEGRADED);
            assertThat(degraded).as("the ladder held it").startsWith("delayed; ms=");
            return Long.parseLong(degraded.substring("delayed; ms=".length()));
        }
    }

    @Test
    void aFailClosedTierIsRefusedWhenTheSecondAskHasSpentWhatTheFirstLeft() {
        Decided r = new Decided("free");
        time.advanceTimeBy(Duration.ofMillis(FIRST_ANSWER_MS));
        long second = FIRST_ANSWER_MS + r.heldMs();
        time.advanceTimeTo(Instant.ofEpochMilli(second + 349));
        assertThat(asks.get()).as("asked again after the hold").isEqualTo(2);
        assertThat(r.decidedAtMs).as("still within what the first ask left").isEqualTo(-1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(r.decidedAtMs)
                .as("750 ms of store waits in all, the hold apart")
                .isEqualTo(second + 350);
        assertThat(r.budget.waited()).isEqualTo(BUDGET);
        assertThat(r.exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(r.sent).isFalse();
        assertThat(meters.counter("sluice.store.fallback", "tier", "free", "policy", "fail-closed")
                        .count())
                .isEqualTo(1);
        assertThat(state.up())
                .as("a call cut by one request's budget does not mark Redis down for all")
                .isTrue();
    }

    @Test
    void aFailOpenTierIsServedOnThisReplicasWindowsOnceTheBudgetIsSpent() {
        Decided r = new Decided("pro");
        time.advanceTimeBy(Duration.ofMillis(FIRST_ANSWER_MS));
        long second = FIRST_ANSWER_MS + r.heldMs();
        time.advanceTimeTo(Instant.ofEpochMilli(second + 350));
        assertThat(r.decidedAtMs).isEqualTo(second + 350);
        assertThat(r.budget.waited()).isEqualTo(BUDGET);
        assertThat(r.sent).as("admitted on the local windows").isTrue();
        assertThat(QuotaReservation.ATTRIBUTE.get(r.exchange)).isNotNull();
        assertThat(meters.counter("sluice.store.fallback", "tier", "pro", "policy", "fail-open")
                        .count())
                .isEqualTo(1);
        // Anything the request asks the store after this is answered by the policy at once, without a call.
        assertThat(limiter.acquire("t-pro", config.tier("pro").orElseThrow(), 26, r.budget)
                        .block(Duration.ofSeconds(1))
                        .admitted())
                .isTrue();
        assertThat(asks.get()).isEqualTo(2);
    }
}
