package dev.sluice.gateway.abuse.redis;

import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.abuse.UsageSamples;
import dev.sluice.gateway.store.LuaScripts;
import java.util.List;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A sorted set per tenant, {@code <ns>:usage:{tenant}}, scored by the minute, one member per
 * minute (a line of {@link UsageSamples}). Appending is one script: replace the minute, drop
 * points older than the retention, and set the key's TTL to the retention, so a tenant that
 * goes away leaves nothing behind.
 */
public final class RedisUsageHistory implements UsageHistory {
    private static final RedisScript<Long> APPEND = LuaScripts.load(Long.class, "usage_append");

    private final ReactiveStringRedisTemplate redis;
    private final String namespace;

    public RedisUsageHistory(ReactiveStringRedisTemplate redis, String namespace) {
        this.redis = redis;
        this.namespace = namespace;
    }

    String key(String tenantId) {
        return namespace + ":usage:{" + tenantId + "}";
    }

    @Override
    public Mono<Void> append(String tenantId, UsageSample sample, int retentionMinutes) {
        List<String> args = List.of(
                Long.toString(sample.minuteStartMs()),
                UsageSamples.encode(sample),
                Long.toString(retentionMinutes * 60_000L));
        return redis.execute(APPEND, List.of(key(tenantId)), args).then();
    }

    @Override
    public Flux<UsageSample> since(String tenantId, long fromMs) {
        return redis.opsForZSet()
                .rangeByScore(key(tenantId), Range.closed((double) fromMs, Double.MAX_VALUE))
                .map(UsageSamples::decode);
    }
}
