package dev.sluice.gateway.tenant;

import dev.sluice.gateway.store.DecisionBudget;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The single-instance store: tenants by id, tenant ids by key hash, key records by tenant. */
public final class InMemoryTenantStore implements TenantStore {
    private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();
    private final Map<String, String> tenantByKeyHash = new ConcurrentHashMap<>();
    private final Map<String, Map<String, TenantKey>> keysByTenant = new ConcurrentHashMap<>();

    @Override
    public Mono<Tenant> findByKeyHash(String keySha256) {
        return Mono.fromSupplier(() -> {
            String id = tenantByKeyHash.get(keySha256);
            return id == null ? null : tenants.get(id);
        });
    }

    @Override
    public Mono<Caller> findCaller(String keySha256, DecisionBudget budget) {
        return Mono.fromSupplier(() -> {
            String id = tenantByKeyHash.get(keySha256);
            Tenant t = id == null ? null : tenants.get(id);
            if (t == null) return null;
            return new Caller(t, keysByTenant.getOrDefault(id, Map.of()).get(TenantKey.idOf(keySha256)));
        });
    }

    @Override
    public Mono<Boolean> updateKey(String tenantId, TenantKey key) {
        return Mono.fromSupplier(() -> {
            Map<String, TenantKey> keys = keysByTenant.get(tenantId);
            return keys != null && keys.computeIfPresent(key.id(), (id, old) -> key) != null;
        });
    }

    @Override
    public Mono<Tenant> findById(String id) {
        return Mono.fromSupplier(() -> tenants.get(id));
    }

    @Override
    public Flux<Tenant> findAll() {
        return Flux.defer(() -> Flux.fromIterable(tenants.values())).sort(Comparator.comparing(Tenant::id));
    }

    @Override
    public Mono<Void> save(Tenant tenant) {
        return Mono.fromRunnable(() -> tenants.put(tenant.id(), tenant));
    }

    @Override
    public Mono<Boolean> create(Tenant tenant) {
        return Mono.fromSupplier(() -> tenants.putIfAbsent(tenant.id(), tenant) == null);
    }

    @Override
    public Mono<Void> addKey(String tenantId, TenantKey key) {
        return Mono.fromRunnable(() -> {
            if (!tenants.containsKey(tenantId)) throw new IllegalArgumentException("no tenant " + tenantId);
            keysByTenant
                    .computeIfAbsent(tenantId, id -> new ConcurrentHashMap<>())
                    .put(key.id(), key);
            tenantByKeyHash.put(key.sha256(), tenantId);
        });
    }

    @Override
    public Flux<TenantKey> keys(String tenantId) {
        return Flux.defer(() -> Flux.fromIterable(
                        keysByTenant.getOrDefault(tenantId, Map.of()).values()))
                .sort(Comparator.comparing(TenantKey::createdAt).thenComparing(TenantKey::id));
    }

    @Override
    public Mono<Boolean> revokeKey(String tenantId, String keyId) {
        return Mono.fromSupplier(() -> {
            TenantKey key = keysByTenant.getOrDefault(tenantId, Map.of()).get(keyId);
            if (key == null) return false;
            tenantByKeyHash.remove(key.sha256(), tenantId); // authentication stops first
            keysByTenant.get(tenantId).remove(keyId);
            return true;
        });
    }

    @Override
    public Mono<Boolean> revokeKey(String keySha256) {
        return Mono.fromSupplier(() -> {
            String owner = tenantByKeyHash.remove(keySha256);
            if (owner == null) return false;
            Map<String, TenantKey> keys = keysByTenant.get(owner);
            if (keys != null) keys.remove(TenantKey.idOf(keySha256));
            return true;
        });
    }
}
