package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.redis.RedisUsageHistory;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RedisUsageHistoryTest extends UsageHistoryContract {
    final String namespace = "test-" + UUID.randomUUID();

    @Override
    UsageHistory newHistory() {
        return new RedisUsageHistory(TestRedisTemplates.template(), namespace);
    }

    @Test
    void aPointStoredBeforeTheCeilingSignalExistedStillReads() {
        String old = T0 + " free 9500 10 0.95 minute 10 0 0 1 0"; // the line format before the ceiling fields
        TestRedisTemplates.template()
                .opsForZSet()
                .add(namespace + ":usage:{" + tenant + "}", old, T0)
                .block();
        UsageSample s = history.since(tenant, 0).blockFirst();
        assertThat(s.ceiling()).isNull();
        assertThat(s.pressure()).isEqualTo(0.95); // the detector falls back on the snapshot
        assertThat(s.stages()).containsEntry("passed", 10L).containsEntry("rejected", 1L);
    }

    @Test
    void theSeriesKeyLivesAsLongAsTheRetention() {
        history.append(tenant, sample(0, 1), 1440).block();
        Duration ttl = TestRedisTemplates.template()
                .getExpire(namespace + ":usage:{" + tenant + "}")
                .block();
        assertThat(ttl).isBetween(Duration.ofHours(23), Duration.ofHours(24));
    }
}
