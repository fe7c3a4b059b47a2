package dev.sluice.gateway.quota.memory;

import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.SpendLimit;
import dev.sluice.gateway.quota.TenantWindows;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.support.LockedStates;
import java.time.Clock;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The single-instance store: one {@link TenantWindows} per tenant, locked per tenant. Idle
 * tenants (their windows all empty, no spend kept for a period) are evicted so memory follows the
 * active tenants.
 */
public final class InMemoryQuotaStore implements QuotaStore {
    private final Clock clock;
    private final LockedStates<TenantWindows> tenants;

    public InMemoryQuotaStore(Clock clock) {
        this.clock = clock;
        this.tenants = new LockedStates<>(clock, TenantWindows::new, TenantWindows::isIdle);
    }

    @Override
    public Mono<QuotaDecision> acquire(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
        return Mono.fromSupplier(() -> tenants.apply(
                tenantId,
                t -> t.acquire(
                        windows, spends, clock.millis(), charge.tokens(), charge.requests(), charge.costMicros())));
    }

    /** Every correction under the tenant's one lock: one step, as Redis makes it one script. */
    @Override
    public Mono<Void> adjustAll(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
        return Mono.fromRunnable(() -> tenants.apply(tenantId, t -> {
            long now = clock.millis();
            for (Correction c : corrections)
                t.adjust(windows, spends, now, c.chargedAtMs(), c.deltaTokens(), c.deltaRequests(), c.deltaMicros());
            return null;
        }));
    }

    @Override
    public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
        return Mono.fromSupplier(() -> tenants.apply(tenantId, t -> t.usage(windows, clock.millis())));
    }

    /** For tests and metrics: tenants with state held. */
    public int tenantsHeld() {
        return tenants.size();
    }
}
