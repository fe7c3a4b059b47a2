package dev.sluice.gateway.tenant;

import java.util.Objects;

/**
 * Who a presented key is: the tenant that owns it and the key's own record (its caps, its expiry).
 *
 * @param key null where the store cannot tell (a key known only by its hash, from before keys
 *            carried caps): then the key has no caps of its own
 */
public record Caller(Tenant tenant, TenantKey key) {
    public Caller {
        Objects.requireNonNull(tenant, "tenant");
    }

    public String keyId() {
        return key == null ? null : key.id();
    }
}
