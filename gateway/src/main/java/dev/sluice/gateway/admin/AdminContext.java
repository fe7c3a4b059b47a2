package dev.sluice.gateway.admin;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.tenant.TenantStore;
import java.time.Clock;

/**
 * What the admin handlers that change things share: the tenants they act on, the configuration
 * in force, the clock, the audit of each change, and the reader of their request bodies.
 */
record AdminContext(TenantStore tenants, ConfigRegistry config, Clock clock, AuditLog audit, BodyReader bodies) {}
