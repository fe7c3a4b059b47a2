package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The provider budget while Redis is out: this replica's share of the provider's limits, so a
 * fail-open tier is actually served (before, every acquire failed and the request waited out
 * its max-wait for gateway_busy); and after it, no stampede: what was spent locally counts in
 * the shared budget, so the outage's minute and the one after stay within the provider's limits.
 */
class FallbackProviderBudgetStoreTest {
    static final BudgetLimits LIMITS = new BudgetLimits(40, 40_000, 8, 60_000);
    static final String KEY = "default:*";

    final FakeClock clock = new FakeClock(1_900_000_000_000L);
    final InMemoryProviderBudgetStore redisStandIn = new InMemoryProviderBudgetStore(clock);
    final AtomicBoolean redisDown = new AtomicBoolean();
    /** The shared store, failing as Redis does when it is out (an error within the timeout). */
    final ProviderBudgetStore shared = new DelegatingBudgetStore(redisStandIn) {
        @Override
        public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
            return redisDown.get()
                    ? Mono.error(new IllegalStateException("Redis out"))
                    : super.tryAcquire(key, limits, call);
        }
    };

    final StoreState state = new StoreState(true, clock::millis);
    final FallbackProviderBudgetStore store =
            new FallbackProviderBudgetStore(shared, clock, state, Duration.ofMillis(500), 4, new SimpleMeterRegistry());

    int admitted(int attempts) {
        int n = 0;
        for (int i = 0; i < attempts; i++) {
            BudgetDecision d = store.tryAcquire(
                            KEY,
                            LIMITS,
                            new Acquire(Amounts.call(100, 0, 0), "lease-" + clock.millis() + "-" + i, false))
                    .block(Duration.ofSeconds(1));
            if (d.admitted()) {
                n++;
                store.release(KEY, "lease-" + clock.millis() + "-" + i).block(Duration.ofSeconds(1));
            }
        }
        return n;
    }

    @Test
    void whileRedisIsOutThisReplicaSpendsItsShareAndAfterItTheSharedBudgetCountsWhatWasSpent() {
        redisDown.set(true);
        assertThat(admitted(20))
                .as("a quarter of 40 requests a minute, on this replica alone")
                .isEqualTo(10);
        assertThat(state.up()).isFalse();

        clock.advance(10_000);
        redisDown.set(false);
        state.answered(); // what the probe does when Redis answers again
        assertThat(redisStandIn.snapshot(KEY, LIMITS).block().usedRequests())
                .as("the outage's spend, handed over")
                .isEqualTo(10);
        assertThat(admitted(60))
                .as("the rest of the provider's minute, not a second full one")
                .isEqualTo(30);
    }

    /** A slot taken in Redis and given back while Redis is out is freed in Redis once it answers, not after the lease's 10 minutes. */
    @Test
    void aSharedLeaseReleasedWhileRedisIsOutIsReleasedThereWhenItAnswers() {
        assertThat(store.tryAcquire(KEY, LIMITS, new Acquire(Amounts.call(100, 0, 0), "held", false))
                        .block(Duration.ofSeconds(1))
                        .admitted())
                .isTrue();
        state.failed(new IllegalStateException("Redis paused"));
        store.release(KEY, "held").block(Duration.ofSeconds(1));
        assertThat(redisStandIn.snapshot(KEY, LIMITS).block().inFlight()).isEqualTo(1);
        state.answered();
        assertThat(redisStandIn.snapshot(KEY, LIMITS).block().inFlight()).isZero();
        assertThat(store.pendingReleases()).isZero();
    }

    @Test
    void theShareIsEachLimitDividedByTheReplicasAndNeverZero() {
        BudgetLimits share = store.share(new BudgetLimits(6, 100, 2, 1_000));
        assertThat(share.requestsPerMinute()).isEqualTo(1);
        assertThat(share.tokensPerMinute()).isEqualTo(25);
        assertThat(share.maxInFlight()).isEqualTo(1);
    }

    /** Input and output limits too: each replica's share while Redis is out, handed over as it answers again. */
    @Test
    void aSplitBudgetSpendsItsShareOfInputAndOutputAndHandsItOver() {
        BudgetLimits split = new BudgetLimits(400, Long.MAX_VALUE, 80, 60_000, 40_000, 4_000);
        assertThat(store.share(split)).isEqualTo(new BudgetLimits(100, Long.MAX_VALUE / 4, 20, 60_000, 10_000, 1_000));
        assertThat(store.share(LIMITS).split()).as("no split stays none").isFalse();

        redisDown.set(true);
        int admitted = 0;
        for (int i = 0; i < 5; i++) {
            BudgetDecision d = store.tryAcquire(
                            KEY, split, new Acquire(Amounts.call(600, 300, 300), "split-" + i, false))
                    .block(Duration.ofSeconds(1));
            if (d.admitted()) admitted++;
            else assertThat(d.refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        }
        assertThat(admitted).as("300 output each against this replica's 1,000").isEqualTo(3);

        redisDown.set(false);
        state.answered();
        BudgetSnapshot shared = redisStandIn.snapshot(KEY, split).block();
        assertThat(shared.usedOutputTokens()).isEqualTo(900);
        assertThat(shared.usedInputTokens()).isEqualTo(900);
        assertThat(shared.usedRequests()).isEqualTo(3);
    }
}
