package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tenants in Redis, shared by every replica. Layout (all under {@code sluice:}):
 * <ul>
 *   <li>{@code sluice:tenant:{id}}: hash {@code tier}, {@code suspended};</li>
 *   <li>{@code sluice:tenant:{id}:keys}: hash key id → {@code <sha256> <created-at ms> <hint>},
 *       the metadata the admin API lists (same hash tag: same Cluster slot as the tenant);</li>
 *   <li>{@code sluice:apikey:<sha256>}: the owning tenant's id: the one lookup authentication does;</li>
 *   <li>{@code sluice:tenants}: set of ids, for listing.</li>
 * </ul>
 * A key's metadata is written before its lookup entry and removed after it, so a key that
 * authenticates is always listed (and can be revoked). These are records, not counters, so
 * unlike the quota keys they carry no TTL.
 */
public final class RedisTenantStore implements TenantStore {
    private final ReactiveStringRedisTemplate redis;

    public RedisTenantStore(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    static String tenantKey(String id) {
        return "sluice:tenant:{" + id + "}";
    }

    static String keysKey(String id) {
        return "sluice:tenant:{" + id + "}:keys";
    }

    static String apiKeyKey(String hash) {
        return "sluice:apikey:" + hash;
    }

    @Override
    public Mono<Tenant> findByKeyHash(String keySha256) {
        return redis.opsForValue().get(apiKeyKey(keySha256)).flatMap(this::findById);
    }

    @Override
    public Mono<Tenant> findById(String id) {
        return redis.<String, String>opsForHash().entries(tenantKey(id)).collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .filter(m -> m.containsKey("tier"))
                .map(m -> new Tenant(id, m.get("tier"), Boolean.parseBoolean(m.get("suspended"))));
    }

    @Override
    public Flux<Tenant> findAll() {
        return redis.opsForSet().members("sluice:tenants").sort().concatMap(this::findById);
    }

    @Override
    public Mono<Void> save(Tenant tenant) {
        return redis.<String, String>opsForHash()
                .putAll(tenantKey(tenant.id()), Map.of("tier", tenant.tierName(), "suspended", Boolean.toString(tenant.suspended())))
                .then(redis.opsForSet().add("sluice:tenants", tenant.id()))
                .then();
    }

    @Override
    public Mono<Boolean> create(Tenant tenant) {
        // HSETNX on the field every tenant has decides the race; the rest is written by the winner only.
        return redis.<String, String>opsForHash().putIfAbsent(tenantKey(tenant.id()), "tier", tenant.tierName())
                .flatMap(created -> created ? save(tenant).thenReturn(true) : Mono.just(false));
    }

    @Override
    public Mono<Void> addKey(String tenantId, TenantKey key) {
        String meta = key.sha256() + " " + key.createdAt().toEpochMilli() + " " + (key.hint() == null ? "" : key.hint());
        return redis.hasKey(tenantKey(tenantId)).flatMap(exists -> exists
                ? redis.<String, String>opsForHash().put(keysKey(tenantId), key.id(), meta)
                        .then(redis.opsForValue().set(apiKeyKey(key.sha256()), tenantId)).then()
                : Mono.error(new IllegalArgumentException("no tenant " + tenantId)));
    }

    @Override
    public Flux<TenantKey> keys(String tenantId) {
        return redis.<String, String>opsForHash().entries(keysKey(tenantId))
                .map(e -> parse(e.getValue()))
                .sort(Comparator.comparing(TenantKey::createdAt).thenComparing(TenantKey::id));
    }

    private static TenantKey parse(String meta) {
        String[] parts = meta.split(" ", 3);
        String hint = parts.length > 2 && !parts[2].isEmpty() ? parts[2] : null;
        return new TenantKey(TenantKey.idOf(parts[0]), parts[0], hint, Instant.ofEpochMilli(Long.parseLong(parts[1])));
    }

    @Override
    public Mono<Boolean> revokeKey(String tenantId, String keyId) {
        return redis.<String, String>opsForHash().get(keysKey(tenantId), keyId)
                .flatMap(meta -> {
                    String hash = meta.split(" ", 2)[0];
                    return redis.delete(apiKeyKey(hash))
                            .then(redis.<String, String>opsForHash().remove(keysKey(tenantId), keyId))
                            .thenReturn(true);
                })
                .defaultIfEmpty(false);
    }

    @Override
    public Mono<Boolean> revokeKey(String keySha256) {
        return redis.opsForValue().getAndDelete(apiKeyKey(keySha256))
                .flatMap(owner -> redis.<String, String>opsForHash().remove(keysKey(owner), TenantKey.idOf(keySha256))
                        .thenReturn(true))
                .defaultIfEmpty(false);
    }
}
