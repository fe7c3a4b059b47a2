package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.redis.RedisCalibrationStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The same contract against a real Redis, through {@code calibration_share.lua}. */
class RedisCalibrationStoreTest extends CalibrationStoreContract {
    @Override
    CalibrationStore newStore() {
        return new RedisCalibrationStore(TestRedisTemplates.template());
    }

    @Test
    void theHashExpiresMaxAgeAfterItsLastWriteAndSkipsWhatIsNotAnEntry() {
        var redis = TestRedisTemplates.template();
        String hash = RedisCalibrationStore.hashKey(key);
        redis.opsForHash().put(hash, "stranger", "not an entry").block(Duration.ofSeconds(5));
        assertThat(share("a", 1.1, 1, 1_000)).containsOnlyKeys("a");
        Long ttl = redis.getExpire(hash).map(Duration::toMillis).block(Duration.ofSeconds(5));
        assertThat(ttl).isPositive().isLessThanOrEqualTo(MAX_AGE);
    }
}
