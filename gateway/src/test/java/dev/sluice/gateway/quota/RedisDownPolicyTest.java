package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.EndpointAccess;
import dev.sluice.gateway.config.RedisDownPolicy;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Redis down is a named policy per tier, decided within the store timeout, counted, never a hang. */
@ExtendWith(OutputCaptureExtension.class)
class RedisDownPolicyTest {
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final FakeClock clock = new FakeClock(1_900_000_000_000L);
    LettuceConnectionFactory factory;

    static Tier tier(String name, RedisDownPolicy policy) {
        return new Tier(
                name,
                1000,
                10,
                1.0,
                1,
                100,
                List.of(new WindowLimit("hour", 3600, 60_000, 600)),
                Map.of(),
                false,
                policy,
                EndpointAccess.DEFAULT,
                TierModels.ALL,
                SpendBudget.NONE);
    }

    /** A Redis address where nothing listens: connections are refused, as when Redis is down. */
    RedisQuotaStore deadRedis() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        return new RedisQuotaStore(new ReactiveStringRedisTemplate(factory));
    }

    @AfterEach
    void close() {
        if (factory != null) factory.destroy();
    }

    @Test
    void aFailClosedTierIsRefusedAtOnceWhenRedisIsDown() throws Exception {
        QuotaLimiter limiter =
                new QuotaLimiter(deadRedis(), new InMemoryQuotaStore(clock), Duration.ofMillis(500), meters);
        long started = System.nanoTime();
        QuotaLimiter.Outcome outcome = limiter.acquire("t", tier("free", RedisDownPolicy.FAIL_CLOSED), 10)
                .block(Duration.ofSeconds(5));
        assertThat(outcome.storeUnavailable()).isTrue();
        assertThat(outcome.admitted()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        assertThat(meters.counter("sluice.store.fallback", "tier", "free", "policy", "fail-closed")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aFailOpenTierIsServedByThisReplicasOwnWindowsWhenRedisIsDown() throws Exception {
        QuotaLimiter limiter =
                new QuotaLimiter(deadRedis(), new InMemoryQuotaStore(clock), Duration.ofMillis(500), meters);
        Tier pro = tier("pro", RedisDownPolicy.FAIL_OPEN);
        assertThat(limiter.acquire("t", pro, 600).block(Duration.ofSeconds(5)).admitted())
                .isTrue();
        QuotaLimiter.Outcome second = limiter.acquire("t", pro, 600).block(Duration.ofSeconds(5));
        assertThat(second.admitted())
                .as("the local limiter still enforces the tier")
                .isFalse();
        assertThat(second.decision().retryAfterMs()).isPositive();
        assertThat(meters.counter("sluice.store.fallback", "tier", "pro", "policy", "fail-open")
                        .count())
                .isEqualTo(2);
    }

    /** The one warning per 10 s is timed by the limiter's clock, not the wall clock beside it. */
    @Test
    void theOutageWarningIsThrottledOnTheInjectedClock(CapturedOutput output) {
        QuotaStore refusing = new QuotaStore() {
            @Override
            public Mono<QuotaDecision> acquire(
                    String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
                return Mono.error(new IllegalStateException("refused"));
            }

            @Override
            public Mono<Void> adjustAll(
                    String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
                return Mono.error(new IllegalStateException("refused"));
            }

            @Override
            public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
                return Mono.error(new IllegalStateException("refused"));
            }
        };
        QuotaLimiter limiter = new QuotaLimiter(
                refusing, null, Duration.ofMillis(500), meters, StoreState.alwaysUp(), null, clock, clock);
        Tier free = tier("free", RedisDownPolicy.FAIL_CLOSED);
        int mark = output.getOut().length();
        limiter.acquire("t", free, 10).block(Duration.ofSeconds(5));
        clock.advance(9_000);
        limiter.acquire("t", free, 10).block(Duration.ofSeconds(5));
        assertThat(warnings(output, mark)).as("within 10 s of the first").isEqualTo(1);
        clock.advance(2_000);
        limiter.acquire("t", free, 10).block(Duration.ofSeconds(5));
        assertThat(warnings(output, mark)).as("11 s on, by the limiter's clock").isEqualTo(2);
    }

    private static long warnings(CapturedOutput output, int mark) {
        return output.getOut()
                .substring(mark)
                .lines()
                .filter(l -> l.contains("Quota store did not answer"))
                .count();
    }

    @Test
    void aStoreThatNeverAnswersIsGivenUpOnAfterTheTimeoutNotAConnectTimeout() {
        QuotaStore silent = new QuotaStore() { // a store that hangs, as a Redis behind a black-holed network would
                    @Override
                    public Mono<QuotaDecision> acquire(
                            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
                        return Mono.never();
                    }

                    @Override
                    public Mono<Void> adjustAll(
                            String tenantId,
                            List<WindowLimit> windows,
                            List<SpendLimit> spends,
                            List<Correction> corrections) {
                        return Mono.never();
                    }

                    @Override
                    public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
                        return Mono.never();
                    }
                };
        QuotaLimiter limiter = new QuotaLimiter(silent, null, Duration.ofMillis(300), meters);
        StepVerifier.withVirtualTime(() -> limiter.acquire("t", tier("free", RedisDownPolicy.FAIL_OPEN), 10))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(299))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(o -> assertThat(o.storeUnavailable())
                        .as("no local fallback configured: refused")
                        .isTrue())
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }

    /**
     * After an outage a fail-open tenant does not get a second full window: what it used on this
     * replica's windows meanwhile is charged in the shared store once Redis answers again.
     */
    @Test
    void whatAFailOpenTenantUsedDuringAnOutageCountsInTheSharedWindowsAfterIt() {
        InMemoryQuotaStore sharedStandIn = new InMemoryQuotaStore(clock);
        AtomicBoolean redisDown = new AtomicBoolean(true);
        QuotaStore shared = failingWhile(redisDown, sharedStandIn); // fails as Redis does while it is out
        StoreState state = new StoreState(true, clock::millis);
        QuotaLimiter limiter = new QuotaLimiter(
                shared,
                new InMemoryQuotaStore(clock),
                Duration.ofMillis(500),
                meters,
                state,
                () -> new InMemoryQuotaStore(clock),
                clock,
                clock);
        Tier pro = tier("pro", RedisDownPolicy.FAIL_OPEN); // 1,000 tokens a minute
        assertThat(limiter.acquire("t", pro, 600).block(Duration.ofSeconds(5)).admitted())
                .as("served locally")
                .isTrue();
        assertThat(state.up()).isFalse();

        clock.advance(5_000);
        redisDown.set(false);
        state.answered(); // the probe sees Redis again
        assertThat(sharedStandIn.peek("t", pro.windows()).block()).allMatch(w -> w.usedTokens() == 600);
        assertThat(limiter.acquire("t", pro, 600).block(Duration.ofSeconds(5)).admitted())
                .as("not a second full minute after the outage")
                .isFalse();
        assertThat(limiter.acquire("t", pro, 400).block(Duration.ofSeconds(5)).admitted())
                .isTrue();
    }

    /** Money too: what a fail-open tenant spent on this replica during an outage counts in its day's budget after it. */
    @Test
    void whatAFailOpenTenantSpentDuringAnOutageCountsInTheSharedBudgetAfterIt() {
        InMemoryQuotaStore sharedStandIn = new InMemoryQuotaStore(clock);
        AtomicBoolean redisDown = new AtomicBoolean(true);
        QuotaStore shared = failingWhile(redisDown, sharedStandIn); // fails as Redis does while it is out
        StoreState state = new StoreState(true, clock::millis);
        QuotaLimiter limiter = new QuotaLimiter(
                shared,
                new InMemoryQuotaStore(clock),
                Duration.ofMillis(500),
                meters,
                state,
                () -> new InMemoryQuotaStore(clock),
                clock,
                clock);
        Tier pro = TiersYamlParser.parse("t", """
                        tiers:
                          pro:
                            tokens-per-minute: 100000
                            requests-per-minute: 100
                            priority: 1
                            redis-down: fail-open
                            spend: {usd-per-day: 0.01}
                        providers:
                          - name: default
                            models:
                              "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 50}
                        """).tier("pro").orElseThrow();
        assertThat(limiter.acquire("t", pro, pro.spend(), null, 600, 6_000, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .admitted())
                .as("served locally")
                .isTrue();
        clock.advance(5_000);
        redisDown.set(false);
        state.answered();
        List<SpendLimit> day = SpendLimit.of(pro.spend(), clock.millis());
        assertThat(sharedStandIn
                        .peek("t", List.of(), day)
                        .block()
                        .spends()
                        .get(0)
                        .usedMicros())
                .as("the outage's spend, handed over")
                .isEqualTo(6_000);
        assertThat(limiter.acquire("t", pro, pro.spend(), null, 600, 6_000, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .admitted())
                .as("not a second day's budget after the outage")
                .isFalse();
    }

    /** {@code standIn} as the shared store, except that it fails to admit while {@code down} is set, as Redis does while out. */
    static QuotaStore failingWhile(AtomicBoolean down, QuotaStore standIn) {
        return new QuotaStore() {
            @Override
            public Mono<QuotaDecision> acquire(
                    String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
                return down.get()
                        ? Mono.error(new IllegalStateException("Redis out"))
                        : standIn.acquire(tenantId, windows, spends, charge);
            }

            @Override
            public Mono<Void> adjustAll(
                    String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
                return standIn.adjustAll(tenantId, windows, spends, corrections);
            }

            @Override
            public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
                return standIn.peek(tenantId, windows);
            }
        };
    }
}
