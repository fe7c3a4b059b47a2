package dev.sluice.gateway.abuse.redis;

import dev.sluice.gateway.abuse.SamplerLock;
import java.time.Duration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Mono;

/**
 * A lock per minute: {@code SET <ns>:abuse:lock:<minute> <owner> NX PX 10min}. Whoever sets it
 * samples that minute; the key outlives any clock skew between replicas and then expires.
 */
public final class RedisSamplerLock implements SamplerLock {
    private static final Duration HELD = Duration.ofMinutes(10);

    private final ReactiveStringRedisTemplate redis;
    private final String namespace;

    public RedisSamplerLock(ReactiveStringRedisTemplate redis, String namespace) {
        this.redis = redis;
        this.namespace = namespace;
    }

    @Override
    public Mono<Boolean> tryAcquire(long minuteStartMs, String owner) {
        return redis.opsForValue()
                .setIfAbsent(namespace + ":abuse:lock:" + minuteStartMs, owner, HELD)
                .defaultIfEmpty(false);
    }
}
