package dev.sluice.gateway.quota.memory;

import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.TenantWindows;
import dev.sluice.gateway.quota.WindowUsage;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The single-instance store: one {@link TenantWindows} per tenant, locked per tenant (the
 * critical section is a few array operations, so a monitor is cheaper than anything cleverer).
 * Idle tenants are evicted so memory follows the active tenants, not every tenant ever seen.
 */
public final class InMemoryQuotaStore implements QuotaStore {
    private final Clock clock;
    private final ConcurrentHashMap<String, TenantWindows> tenants = new ConcurrentHashMap<>();
    private volatile long nextSweepMs;

    public InMemoryQuotaStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Mono<QuotaDecision> acquire(String tenantId, List<WindowLimit> windows, long tokens, long requests) {
        return Mono.fromSupplier(() -> withTenant(tenantId, t -> t.acquire(windows, clock.millis(), tokens, requests)));
    }

    @Override
    public Mono<Void> adjust(
            String tenantId, List<WindowLimit> windows, long chargedAtMs, long deltaTokens, long deltaRequests) {
        return Mono.fromRunnable(() -> withTenant(tenantId, t -> {
            t.adjust(windows, clock.millis(), chargedAtMs, deltaTokens, deltaRequests);
            return null;
        }));
    }

    @Override
    public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
        return Mono.fromSupplier(() -> withTenant(tenantId, t -> t.usage(windows, clock.millis())));
    }

    private <T> T withTenant(String tenantId, Function<TenantWindows, T> action) {
        sweepIdle();
        while (true) {
            TenantWindows t = tenants.computeIfAbsent(tenantId, id -> new TenantWindows());
            synchronized (t) {
                // The sweeper may have dropped this instance between lookup and lock: charge the live one.
                if (tenants.get(tenantId) == t) return action.apply(t);
            }
        }
    }

    /** At most once a minute, drop tenants whose windows are all empty. */
    private void sweepIdle() {
        long now = clock.millis();
        if (now < nextSweepMs) return;
        nextSweepMs = now + 60_000;
        tenants.forEach((id, t) -> {
            synchronized (t) {
                if (t.isIdle(now)) tenants.remove(id, t);
            }
        });
    }

    /** For tests and metrics: tenants with state held. */
    public int tenantsHeld() {
        return tenants.size();
    }
}
