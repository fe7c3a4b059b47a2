package dev.sluice.gateway.dispatch.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.calibration.redis.RedisCalibrationStore;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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

    @Test
    void twoReplicasChargeWhatEitherLearnedThroughRedis() {
        FakeClock clock = new FakeClock(1_000_000);
        TokenCalibration.Settings settings = TokenCalibration.Settings.DEFAULTS;
        ProviderCalibration a = new ProviderCalibration(
                newStore(),
                settings,
                Duration.ofSeconds(5),
                Duration.ofMinutes(10),
                Duration.ofSeconds(2),
                clock,
                new SimpleMeterRegistry());
        ProviderCalibration b = new ProviderCalibration(
                newStore(),
                settings,
                Duration.ofSeconds(5),
                Duration.ofMinutes(10),
                Duration.ofSeconds(2),
                clock,
                new SimpleMeterRegistry());
        for (int i = 0; i < 4; i++) a.observe(key, 1000, 1150);
        // b has no answer of its own: the default, unless its first share already read what a wrote.
        assertThat(b.ratio(key))
                .satisfiesAnyOf(
                        r -> assertThat(r).isEqualTo(settings.defaultRatio()),
                        r -> assertThat(r).isCloseTo(1.15, within(1e-9)));
        // Each poll is the next sync interval: both share again, b reads what a wrote.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            clock.advance(5_000);
            a.ratio(key);
            assertThat(b.ratio(key)).isCloseTo(1.15, within(1e-9));
        });
    }
}
