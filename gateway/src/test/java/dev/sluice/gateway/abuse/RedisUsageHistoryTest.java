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
    void theSeriesKeyLivesAsLongAsTheRetention() {
        history.append(tenant, sample(0, 1), 1440).block();
        Duration ttl = TestRedisTemplates.template().getExpire(namespace + ":usage:{" + tenant + "}").block();
        assertThat(ttl).isBetween(Duration.ofHours(23), Duration.ofHours(24));
    }
}
