package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.objects.redis.RedisObjectOwnership;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisObjectOwnershipTest extends ObjectOwnershipContract {
    @Override
    ObjectOwnership newStore() {
        return new RedisObjectOwnership(TestRedisTemplates.template(), StoreState.alwaysUp(), Duration.ofSeconds(2));
    }

    /** Every key expires, and each use starts its long TTL again. */
    @Test
    void everyKeyHasALongTtlThatUseRefreshes() {
        var redis = TestRedisTemplates.template();
        String key = "sluice:o:{" + id("ttl") + "}";
        store.claim(id("ttl"), ObjectRecord.ownedBy("tenant-a")).block(WAIT);
        assertThat(redis.getExpire(key).block(WAIT)).isGreaterThan(RedisObjectOwnership.TTL.minusMinutes(1));
        redis.expire(key, Duration.ofSeconds(100)).block(WAIT);
        store.owners(List.of(id("ttl"))).block(WAIT);
        assertThat(redis.getExpire(key).block(WAIT)).isGreaterThan(RedisObjectOwnership.TTL.minusMinutes(1));
    }

    @Test
    void whileRedisIsDownNobodyOwnsAnything() {
        StoreState down = new StoreState(false, System::currentTimeMillis);
        ObjectOwnership s = new RedisObjectOwnership(TestRedisTemplates.template(), down, Duration.ofSeconds(2));
        assertThatThrownBy(() -> s.owner(id("x")).block(WAIT)).isInstanceOf(StoreUnavailableException.class);
    }

    /** A request with no time left to wait on Redis is refused as if it were down; Redis itself is not marked down. */
    @Test
    void aRequestWithItsStoreBudgetSpentReadsNoOwner() {
        StoreState up = new StoreState(true, System::currentTimeMillis);
        ObjectOwnership s = new RedisObjectOwnership(TestRedisTemplates.template(), up, Duration.ofSeconds(2));
        store.claim(id("mine"), ObjectRecord.ownedBy("tenant-a")).block(WAIT);
        DecisionBudget spent = DecisionBudget.of(Duration.ZERO, System::nanoTime);
        assertThatThrownBy(() -> s.owner(id("mine"), spent).block(WAIT)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> s.owners(List.of(id("mine")), spent).block(WAIT))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(up.up()).isTrue();
        DecisionBudget left = DecisionBudget.of(Duration.ofMillis(750), System::nanoTime);
        assertThat(s.owner(id("mine"), left).block(WAIT).owner()).isEqualTo("tenant-a");
        assertThat(left.waited())
                .as("the read's wait is taken from the request's budget")
                .isPositive();
    }
}
