package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.spend.redis.RedisSpendLedger;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RedisSpendLedgerTest extends SpendLedgerContract {
    String namespace;

    @Override
    SpendLedger newLedger(FakeClock clock) {
        namespace = "test-" + UUID.randomUUID();
        return new RedisSpendLedger(TestRedisTemplates.template(), namespace, Duration.ofSeconds(5));
    }

    @Test
    void replicasAddUpAndNothingReachesRedisBeforeAFlush() {
        RedisSpendLedger other = new RedisSpendLedger(TestRedisTemplates.template(), namespace, Duration.ofSeconds(5));
        ledger.settled(MIDNIGHT, a, "free", 10, 20, 90);
        other.settled(MIDNIGHT, a, "free", 1, 2, 9);
        assertThat(ledger.days(a, DEC_7, DEC_7).collectList().block())
                .as("the request path wrote only to memory")
                .isEmpty();
        other.flush().block();
        assertThat(days(a, DEC_7, DEC_7))
                .containsExactly(new LedgerDay(DEC_7, a, "free", new LedgerTotals(11, 22, 2, 99)));
    }

    @Test
    void everyKeyItWritesIsHashTaggedAndKeptAtLeast400Days() {
        ledger.settled(MIDNIGHT, a, "free", 1, 1, 1);
        ledger.settled(JUST_BEFORE_MIDNIGHT, b, "pro", 1, 1, 1);
        ledger.flush().block();
        var redis = TestRedisTemplates.template();
        var keys = redis.keys(namespace + ":*").collectList().block();
        assertThat(keys)
                .containsExactlyInAnyOrder(
                        namespace + ":ledger:{" + a + "}:2026-12",
                        namespace + ":ledger:{" + b + "}:2026-12",
                        namespace + ":ledger-tenants:{2026-12}");
        keys.forEach(k -> assertThat(redis.getExpire(k).block()).isGreaterThan(Duration.ofDays(400)));
    }

    @Test
    void aFlushAfterTheShutdownsGoesAtOnce() {
        RedisSpendLedger redisLedger = (RedisSpendLedger) ledger;
        redisLedger.flush(Duration.ofSeconds(5));
        ledger.settled(MIDNIGHT, a, "free", 4, 4, 4);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(
                                ledger.days(a, DEC_7, DEC_7).collectList().block())
                        .hasSize(1));
        redisLedger.resume();
    }
}
