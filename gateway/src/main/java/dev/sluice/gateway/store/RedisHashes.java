package dev.sluice.gateway.store;

import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Mono;

/** How the record stores read their Redis hashes of strings (a tenant, an organisation, the tiers document, its draft). */
public final class RedisHashes {
    private RedisHashes() {}

    /** Every field of the hash at {@code key}; an empty map when there is no such key. */
    public static Mono<Map<String, String>> fields(ReactiveStringRedisTemplate redis, String key) {
        return redis.<String, String>opsForHash().entries(key).collectMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    /** The hash's {@code version} field: 0 when the hash or the field does not exist (nothing written yet). */
    public static Mono<Long> version(ReactiveStringRedisTemplate redis, String key) {
        return redis.<String, String>opsForHash()
                .get(key, "version")
                .map(Long::parseLong)
                .defaultIfEmpty(0L);
    }
}
