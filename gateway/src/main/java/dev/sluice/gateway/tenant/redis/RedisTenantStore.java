package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tenants in Redis, shared by every replica. Layout (all under {@code sluice:}):
 * <ul>
 *   <li>{@code sluice:tenant:{id}}: hash {@code tier}, {@code suspended};</li>
 *   <li>{@code sluice:apikey:<sha256>}: the owning tenant's id;</li>
 *   <li>{@code sluice:tenants}: set of ids, for listing.</li>
 * </ul>
 * These are records, not counters, so unlike the quota keys they carry no TTL.
 */
public final class RedisTenantStore implements TenantStore {
    private final ReactiveStringRedisTemplate redis;

    public RedisTenantStore(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    static String tenantKey(String id) {
        return "sluice:tenant:{" + id + "}";
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
    public Mono<Void> addKey(String tenantId, String keySha256) {
        return redis.hasKey(tenantKey(tenantId)).flatMap(exists -> exists
                ? redis.opsForValue().set(apiKeyKey(keySha256), tenantId).then()
                : Mono.error(new IllegalArgumentException("no tenant " + tenantId)));
    }

    @Override
    public Mono<Boolean> revokeKey(String keySha256) {
        return redis.delete(apiKeyKey(keySha256)).map(n -> n > 0);
    }
}
