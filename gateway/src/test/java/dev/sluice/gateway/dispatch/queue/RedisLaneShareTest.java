package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.redis.RedisLaneShare;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The same contract against a real Redis, through {@code lane_share.lua}. */
class RedisLaneShareTest extends LaneShareContract {
    @Override
    LaneShare newShare() {
        return new RedisLaneShare(TestRedisTemplates.template());
    }

    @Test
    void oneHashPerBudgetUnderTheBudgetsHashTagThatExpiresAfterItsLastWrite() {
        var redis = TestRedisTemplates.template();
        String hash = RedisLaneShare.hashKey(key);
        assertThat(hash).isEqualTo("sluice:f:{" + key + "}");
        redis.opsForHash().put(hash, "t:stranger", "not an entry").block(Duration.ofSeconds(5));
        assertThat(publish("a", 1_000, waiting("t1", 800)).counters()).containsOnlyKeys("t1");
        assertThat(redis.opsForHash().hasKey(hash, "t:stranger").block(Duration.ofSeconds(5)))
                .as("dropped, not fatal")
                .isFalse();
        Long ttl = redis.getExpire(hash).map(Duration::toMillis).block(Duration.ofSeconds(5));
        assertThat(ttl).isPositive().isLessThanOrEqualTo(RedisLaneShare.KEEP.toMillis());
    }
}
