package dev.sluice.gateway.testsupport;

import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import java.util.function.LongSupplier;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The Redis quota store on a clock the test moves, instead of Redis TIME, for tests that must control time. */
public final class ClockedRedisQuotaStore extends RedisQuotaStore {
    private final LongSupplier clock;

    public ClockedRedisQuotaStore(ReactiveStringRedisTemplate redis, LongSupplier clock) {
        super(redis);
        this.clock = clock;
    }

    @Override
    protected String now() {
        return Long.toString(clock.getAsLong());
    }
}
