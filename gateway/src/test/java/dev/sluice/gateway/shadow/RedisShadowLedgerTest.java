package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.shadow.redis.RedisShadowLedger;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisShadowLedgerTest extends ShadowLedgerContract {
    @Override
    ShadowLedgerStore newLedger(FakeClock clock) {
        return new RedisShadowLedger(TestRedisTemplates.template(), clock);
    }

    @Test
    void aMinutesHashExpiresWithTheRetention() {
        // A minute near the wall clock: Redis expires keys on its own clock.
        long minute = System.currentTimeMillis() / MIN * MIN;
        ledger.add(List.of(new ShadowMinute(minute, tenant, "free", 1, Map.of("passed", 1L), Map.of())))
                .block();
        Duration ttl = TestRedisTemplates.template()
                .getExpire("sluice:shadow:{" + minute + "}")
                .block();
        assertThat(ttl).isBetween(Duration.ofHours(24), Duration.ofHours(25));
    }

    @Test
    void fieldsThatDoNotParseAreSkipped() {
        assertThat(RedisShadowLedger.parse(
                        T0,
                        Map.of(
                                "a|free|3|draft|rejected", "2",
                                "garbage", "1",
                                "a|free|x|live|passed", "1",
                                "a|free|3|live|passed", "nan",
                                "a|free|3|sideways|passed", "1")))
                .containsExactly(new ShadowMinute(T0, "a", "free", 3, Map.of(), Map.of("rejected", 2L)));
    }
}
