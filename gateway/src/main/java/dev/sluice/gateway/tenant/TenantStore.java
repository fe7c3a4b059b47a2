package dev.sluice.gateway.tenant;

import dev.sluice.gateway.store.DecisionBudget;
import java.time.Instant;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tenants and their keys (as hashes, with a little metadata for people). Redis-backed when
 * shared by replicas, in memory otherwise; {@code TenantStoreContract} tests both.
 * {@link #findByKeyHash} runs on every request: one lookup by hash, then the tenant. A change
 * applies at once to the store it is made through; the Redis store of another replica may
 * still accept a revoked key, or a suspended tenant, for {@code RedisTenantStore.REMEMBER} (a second).
 */
public interface TenantStore {
    /** The tenant owning the key with this SHA-256 hash, or empty. */
    Mono<Tenant> findByKeyHash(String keySha256);

    /**
     * The same for a request: a store that waits on Redis waits at most what is left of
     * {@code budget}, and answers as if Redis were down once it is spent.
     */
    default Mono<Tenant> findByKeyHash(String keySha256, DecisionBudget budget) {
        return findByKeyHash(keySha256);
    }

    /**
     * The tenant and the key's own record (its caps and expiry), for a request; empty when no
     * tenant owns the key. Same budget and same remembering as {@link #findByKeyHash(String, DecisionBudget)}.
     */
    default Mono<Caller> findCaller(String keySha256, DecisionBudget budget) {
        return findByKeyHash(keySha256, budget)
                .flatMap(t -> keys(t.id())
                        .filter(k -> k.sha256().equals(keySha256))
                        .next()
                        .map(k -> new Caller(t, k))
                        .defaultIfEmpty(new Caller(t, null)));
    }

    Mono<Tenant> findById(String id);

    Flux<Tenant> findAll();

    /** Creates or overwrites. */
    Mono<Void> save(Tenant tenant);

    /** Creates the tenant unless its id exists; true if created. */
    Mono<Boolean> create(Tenant tenant);

    /** Adds a key to an existing tenant (an error if there is none). Listed before it authenticates. */
    Mono<Void> addKey(String tenantId, TenantKey key);

    /** Adds a key known only by its hash (demo tenants). */
    default Mono<Void> addKey(String tenantId, String keySha256) {
        return addKey(tenantId, TenantKey.forHash(keySha256, Instant.now()));
    }

    /**
     * Replaces the caps and expiry of the tenant's key {@code key.id()} with {@code key}'s; false
     * (nothing written) if the tenant has no such key. Effective as a revocation is.
     */
    Mono<Boolean> updateKey(String tenantId, TenantKey key);

    /** The tenant's keys, oldest first. */
    Flux<TenantKey> keys(String tenantId);

    /** Revokes the tenant's key with this id; false if it has none such. Effective at once here (see above for other replicas). */
    Mono<Boolean> revokeKey(String tenantId, String keyId);

    /** Revokes a key by its hash, whoever owns it. */
    Mono<Boolean> revokeKey(String keySha256);
}
