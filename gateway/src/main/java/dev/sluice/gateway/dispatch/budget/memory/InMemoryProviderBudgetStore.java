package dev.sluice.gateway.dispatch.budget.memory;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.AmountsDelta;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudget;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.SliceAsk;
import dev.sluice.gateway.dispatch.budget.SliceGrant;
import dev.sluice.gateway.support.LockedStates;
import java.time.Clock;
import reactor.core.publisher.Mono;

/**
 * The single-instance store: one {@link ProviderBudget} per key, locked per key (a few array
 * operations and a map of at most {@code maxInFlight} leases). Idle budgets (nothing charged,
 * held or paused) are evicted, so memory follows the budgets in use.
 */
public final class InMemoryProviderBudgetStore implements ProviderBudgetStore {
    private final Clock clock;
    private final LockedStates<ProviderBudget> budgets;

    public InMemoryProviderBudgetStore(Clock clock) {
        this.clock = clock;
        this.budgets = new LockedStates<>(clock, ProviderBudget::new, ProviderBudget::isIdle);
    }

    /** The schedule is always read here: it costs nothing in memory. */
    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
        return Mono.fromSupplier(() -> budgets.apply(key, b -> b.tryAcquire(limits, call, clock.millis())));
    }

    @Override
    public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
        return Mono.fromSupplier(() -> budgets.apply(key, b -> b.lease(limits, ask, clock.millis())));
    }

    @Override
    public Mono<Boolean> release(String key, String leaseId) {
        return Mono.fromSupplier(() -> budgets.apply(key, b -> b.release(leaseId, clock.millis())));
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta) {
        return Mono.fromRunnable(() -> budgets.apply(key, b -> {
            b.adjust(clock.millis(), chargedAtMs, delta);
            return null;
        }));
    }

    @Override
    public Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        return Mono.fromRunnable(() -> budgets.apply(key, b -> {
            b.settle(clock.millis(), chargedAtMs, countedByMs, chargedTokens, deltaTokens);
            return null;
        }));
    }

    @Override
    public Mono<Long> pause(String key, long pauseMs) {
        return Mono.fromSupplier(() -> budgets.apply(key, b -> b.pause(clock.millis(), pauseMs)));
    }

    @Override
    public Mono<Void> correct(
            String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        return Mono.fromRunnable(() -> budgets.apply(key, b -> {
            b.correct(limits, clock.millis(), remainingRequests, remainingTokens, resetMs);
            return null;
        }));
    }

    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return Mono.fromSupplier(() -> budgets.apply(key, b -> b.snapshot(limits, clock.millis())));
    }

    /** For tests and metrics: budgets with state held. */
    public int budgetsHeld() {
        return budgets.size();
    }
}
