package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.testsupport.TestRedis;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The same contract against a real Redis, through the Lua scripts; the replica has its own connection. */
class RedisProviderBudgetStoreTest extends ProviderBudgetStoreContract {
    private static ReactiveStringRedisTemplate second;

    @Override
    ProviderBudgetStore newStore(FakeClock clock) {
        return new RedisProviderBudgetStore(TestRedisTemplates.template(), clock);
    }

    @Override
    ProviderBudgetStore replica(ProviderBudgetStore store, FakeClock clock) {
        return new RedisProviderBudgetStore(secondClient(), clock);
    }

    @Test
    void redisLeavesTheScheduleOutOfAnAcquireWithRoomAndNobodyWaiting() {
        BudgetDecision d = store.tryAcquire(key, LIMITS, new Acquire(Amounts.call(100, 0, 0), "light", false))
                .block(Duration.ofSeconds(5));
        assertThat(d.snapshot().leaving()).isNull();
        assertThat(Door.Capacity.of(d.snapshot(), 1_000).leaving())
                .as("the door then assumes an even drain")
                .isNull();
    }

    /** Without the input/output split a budget costs what it did: its two windows' keys are never written. */
    @Test
    void aBudgetWithoutTheSplitNeverWritesTheInputAndOutputKeys() {
        Duration t = Duration.ofSeconds(5);
        ReactiveStringRedisTemplate redis = TestRedisTemplates.template();
        BudgetDecision d =
                store.tryAcquire(key, LIMITS, Acquire.of(300, "plain")).block(t);
        store.adjust(key, d.nowMs(), AmountsDelta.tokens(-100)).block(t);
        store.adjust(key, d.nowMs(), new AmountsDelta(-1, -100, 0, 0)).block(t);
        store.snapshot(key, LIMITS).block(t);
        store.release(key, "plain").block(t);
        assertThat(redis.hasKey(RedisProviderBudgetStore.inputWindowKey(key)).block(t))
                .isFalse();
        assertThat(redis.hasKey(RedisProviderBudgetStore.outputWindowKey(key)).block(t))
                .isFalse();

        store.tryAcquire(key, SPLIT, new Acquire(Amounts.call(300, 200, 100), "split", true))
                .block(t);
        for (String k :
                List.of(RedisProviderBudgetStore.inputWindowKey(key), RedisProviderBudgetStore.outputWindowKey(key))) {
            assertThat(redis.getExpire(k).block(t)).as(k + " expires").isPositive();
        }
    }

    private static synchronized ReactiveStringRedisTemplate secondClient() {
        if (second == null) {
            LettuceConnectionFactory factory =
                    new LettuceConnectionFactory(new RedisStandaloneConfiguration(TestRedis.host(), TestRedis.port()));
            factory.afterPropertiesSet();
            factory.start();
            second = new ReactiveStringRedisTemplate(factory);
        }
        return second;
    }
}
