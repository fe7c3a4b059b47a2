package dev.sluice.gateway.testsupport;

import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import java.util.UUID;

/** A fresh tenant per test, so tests sharing a gateway never share a quota. */
public final class TestTenants {
    private TestTenants() {}

    /** A new tenant, and its key; the id is {@code prefix-<uuid>}. */
    public record Created(String id, String key) {}

    public static Created create(TenantStore store, String prefix, String tier) {
        String id = prefix + "-" + UUID.randomUUID();
        String key = ApiKeys.generate();
        store.save(new Tenant(id, tier, false))
                .then(store.addKey(id, ApiKeys.sha256Hex(key)))
                .block();
        return new Created(id, key);
    }
}
