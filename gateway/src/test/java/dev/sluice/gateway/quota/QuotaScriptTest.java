package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The Lua scripts alone against a real Redis: key layout, TTLs, and memory that stays bounded. */
class QuotaScriptTest {
    final ReactiveStringRedisTemplate redis = TestRedisTemplates.template();
    final FakeClock clock = new FakeClock(1_800_000_000_000L);
    final RedisQuotaStore store = new ClockedRedisQuotaStore(redis, clock);
    final List<WindowLimit> windows = List.of(
            new WindowLimit("minute", 60, 1_000_000_000, 1_000_000_000),
            new WindowLimit("hour", 3600, 1_000_000_000, 1_000_000_000));
    final String tenant = "s-" + UUID.randomUUID();

    @Test
    void everyKeyCarriesTheTenantsHashTagAndATtl() {
        store.acquire(tenant, windows, 10, 1).block();
        List<String> keys =
                redis.keys("sluice:q:{" + tenant + "}:*").collectList().block();
        assertThat(keys)
                .containsExactlyInAnyOrder("sluice:q:{" + tenant + "}:minute", "sluice:q:{" + tenant + "}:hour");
        assertThat(redis.getExpire("sluice:q:{" + tenant + "}:minute").block())
                .isBetween(Duration.ofSeconds(60), Duration.ofSeconds(63));
        assertThat(redis.getExpire("sluice:q:{" + tenant + "}:hour").block())
                .isBetween(Duration.ofSeconds(3600), Duration.ofSeconds(3780));
    }

    @Test
    void aPeekWritesNothing() {
        assertThat(store.peek(tenant, windows).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(0L);
        assertThat(redis.keys("sluice:q:{" + tenant + "}:*").collectList().block())
                .isEmpty();
        store.acquire(tenant, windows, 10, 1).block();
        Duration ttl = redis.getExpire("sluice:q:{" + tenant + "}:minute").block();
        clock.advance(30_000);
        assertThat(store.peek(tenant, windows).block().get(0).usedTokens()).isEqualTo(10);
        assertThat(redis.getExpire("sluice:q:{" + tenant + "}:minute").block())
                .as("a peek refreshes no TTL")
                .isLessThanOrEqualTo(ttl);
    }

    @Test
    void memoryPerTenantIsBoundedWhateverTheRequestRate() {
        // 20 000 admissions spread over 10 simulated minutes, 30 per simulated second
        for (int i = 0; i < 20_000; i++) {
            clock.advance(30);
            store.acquire(tenant, windows, 800, 1).block();
        }
        String minute = "sluice:q:{" + tenant + "}:minute";
        Long fields = redis.opsForHash().size(minute).block();
        assertThat(fields).isLessThanOrEqualTo(2L * 61 + 4);
        long usage = memoryUsage(minute) + memoryUsage("sluice:q:{" + tenant + "}:hour");
        assertThat(usage).as("bytes for one busy tenant").isLessThan(8_000);
        // A full window is 126 fields against Redis's default hash-max-listpack-entries of 128: one
        // more header field and busy tenants' hashes would turn into hashtables, several times larger.
        assertThat(fields).as("a busy minute fills every slot").isEqualTo(2L * 61 + 4);
        assertThat(eval("return redis.call('OBJECT','ENCODING',KEYS[1])", minute))
                .isEqualTo("listpack");
    }

    long memoryUsage(String key) {
        return redis.execute(c -> c.scriptingCommands()
                        .eval(
                                ByteBuffer.wrap(
                                        "return redis.call('MEMORY','USAGE',KEYS[1])".getBytes(StandardCharsets.UTF_8)),
                                ReturnType.INTEGER,
                                1,
                                ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8))))
                .next()
                .map(o -> ((Number) o).longValue())
                .block();
    }

    String eval(String script, String key) {
        return redis.execute(c -> c.scriptingCommands()
                        .eval(
                                ByteBuffer.wrap(script.getBytes(StandardCharsets.UTF_8)),
                                ReturnType.VALUE,
                                1,
                                ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8))))
                .next()
                .map(o -> o instanceof ByteBuffer b
                        ? StandardCharsets.UTF_8.decode(b).toString()
                        : String.valueOf(o))
                .block();
    }
}
