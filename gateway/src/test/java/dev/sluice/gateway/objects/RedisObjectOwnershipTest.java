package dev.sluice.gateway.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.objects.redis.RedisObjectOwnership;
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
        assertThatThrownBy(() -> s.owner(id("x")).block(WAIT))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
