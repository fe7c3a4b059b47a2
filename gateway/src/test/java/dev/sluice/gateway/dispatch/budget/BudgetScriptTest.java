package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The budget scripts alone against a real Redis: key layout, hash tags, TTLs, Redis TIME. */
class BudgetScriptTest {
    final ReactiveStringRedisTemplate redis = TestRedisTemplates.template();
    final BudgetLimits limits = new BudgetLimits(1500, 300_000, 200, 30_000);
    final String key = "s" + UUID.randomUUID() + ":*";
    final String tag = "sluice:b:{" + key + "}:";

    @Test
    void everyKeyCarriesTheBudgetsHashTagAndATtl() {
        FakeClock clock = new FakeClock(1_800_000_000_000L);
        RedisProviderBudgetStore store = new RedisProviderBudgetStore(redis, clock);
        store.tryAcquire(key, limits, Acquire.of(800, "a")).block();
        store.pause(key, 7_000).block();
        List<String> keys = redis.keys(tag + "*").collectList().block();
        assertThat(keys).containsExactlyInAnyOrder(tag + "w", tag + "l", tag + "p");
        assertThat(redis.getExpire(tag + "w").block()).isBetween(Duration.ofSeconds(60), Duration.ofSeconds(63));
        assertThat(redis.getExpire(tag + "l").block()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
        assertThat(redis.getExpire(tag + "p").block()).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(8));
    }

    @Test
    void theLeaseSetLivesAsLongAsItsLongestLease() {
        FakeClock clock = new FakeClock(1_800_000_000_000L);
        RedisProviderBudgetStore store = new RedisProviderBudgetStore(redis, clock);
        store.tryAcquire(key, limits, Acquire.of(1, "long")).block();
        clock.advance(10_000);
        store.tryAcquire(key, limits.withMaxInFlight(100), Acquire.of(1, "later"))
                .block();
        // the later lease expires 40 s after the first acquire: the set must live that long
        assertThat(redis.getExpire(tag + "l").block()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
        store.release(key, "long").block();
        store.release(key, "later").block();
        assertThat(redis.hasKey(tag + "l").block())
                .as("an empty lease set is gone")
                .isFalse();
    }

    @Test
    void withoutATestClockTheScriptsUseRedisTime() {
        RedisProviderBudgetStore store = new RedisProviderBudgetStore(redis);
        long before = System.currentTimeMillis();
        BudgetDecision d = store.tryAcquire(key, limits, Acquire.of(10, "t")).block();
        assertThat(d.admitted()).isTrue();
        assertThat(d.nowMs()).isBetween(before - 5_000, System.currentTimeMillis() + 5_000);
        store.adjust(key, d.nowMs(), AmountsDelta.tokens(-10)).block();
        BudgetSnapshot s = store.snapshot(key, limits).block();
        assertThat(s.usedTokens()).isZero();
        assertThat(s.inFlight()).isEqualTo(1);
        assertThat(store.release(key, "t").block()).isTrue();
    }
}
