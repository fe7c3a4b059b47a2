package dev.sluice.gateway.tenant;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The single-instance store: two maps, tenants by id and tenant ids by key hash. */
public final class InMemoryTenantStore implements TenantStore {
    private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();
    private final Map<String, String> tenantByKeyHash = new ConcurrentHashMap<>();

    @Override
    public Mono<Tenant> findByKeyHash(String keySha256) {
        return Mono.fromSupplier(() -> {
            String id = tenantByKeyHash.get(keySha256);
            return id == null ? null : tenants.get(id);
        });
    }

    @Override
    public Mono<Tenant> findById(String id) {
        return Mono.fromSupplier(() -> tenants.get(id));
    }

    @Override
    public Flux<Tenant> findAll() {
        return Flux.defer(() -> Flux.fromIterable(tenants.values()));
    }

    @Override
    public Mono<Void> save(Tenant tenant) {
        return Mono.fromRunnable(() -> tenants.put(tenant.id(), tenant));
    }

    @Override
    public Mono<Void> addKey(String tenantId, String keySha256) {
        return Mono.fromRunnable(() -> {
            if (!tenants.containsKey(tenantId)) throw new IllegalArgumentException("no tenant " + tenantId);
            tenantByKeyHash.put(keySha256, tenantId);
        });
    }

    @Override
    public Mono<Boolean> revokeKey(String keySha256) {
        return Mono.fromSupplier(() -> tenantByKeyHash.remove(keySha256) != null);
    }
}
