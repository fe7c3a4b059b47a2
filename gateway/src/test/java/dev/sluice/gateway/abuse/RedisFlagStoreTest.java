package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.redis.RedisFlagStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RedisFlagStoreTest extends FlagStoreContract {
    final String namespace = "test-" + UUID.randomUUID();

    @Override
    FlagStore newStore() {
        return new RedisFlagStore(TestRedisTemplates.template(), namespace, Duration.ofDays(90));
    }

    @Test
    void anOpenFlagIsKeptAClosedOneExpires() {
        Flag f = store.openIfNone(flag(tenant, T0)).block();
        String key = namespace + ":{flags}:flag:" + f.id();
        var redis = TestRedisTemplates.template();
        assertThat(redis.getExpire(key).block()).isLessThanOrEqualTo(Duration.ZERO); // no TTL while open
        store.update(f.id(), x -> x.reviewed(review(ReviewAction.DISMISS, "fine", null)))
                .block();
        assertThat(redis.getExpire(key).block()).isBetween(Duration.ofDays(89), Duration.ofDays(90));
    }
}
