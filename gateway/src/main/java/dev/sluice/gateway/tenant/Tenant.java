package dev.sluice.gateway.tenant;

import java.util.Objects;

/** A customer of the gateway: its tier by name (resolved against the config in force) and its status. */
public record Tenant(String id, String tierName, boolean suspended) {
    public Tenant {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tierName, "tierName");
    }
}
