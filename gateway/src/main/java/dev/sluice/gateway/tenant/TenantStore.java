package dev.sluice.gateway.tenant;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Tenants and their keys (as hashes). Redis-backed when shared by replicas, in memory otherwise. */
public interface TenantStore {
    /** The tenant owning the key with this SHA-256 hash, or empty. */
    Mono<Tenant> findByKeyHash(String keySha256);

    Mono<Tenant> findById(String id);

    Flux<Tenant> findAll();

    Mono<Void> save(Tenant tenant);

    /** Adds a key (by hash) to an existing tenant. */
    Mono<Void> addKey(String tenantId, String keySha256);

    Mono<Boolean> revokeKey(String keySha256);
}
