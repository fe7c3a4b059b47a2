package dev.sluice.gateway.dispatch.budget;

import reactor.core.publisher.Mono;

/** Passes every call to the store it wraps; each test overrides the call it changes (goes silent, stalls, counts). */
public class DelegatingBudgetStore implements ProviderBudgetStore {
    protected final ProviderBudgetStore inner;

    public DelegatingBudgetStore(ProviderBudgetStore inner) {
        this.inner = inner;
    }

    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
        return inner.tryAcquire(key, limits, call);
    }

    @Override
    public Mono<Boolean> release(String key, String leaseId) {
        return inner.release(key, leaseId);
    }

    @Override
    public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
        return inner.lease(key, limits, ask);
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta) {
        return inner.adjust(key, chargedAtMs, delta);
    }

    @Override
    public Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        return inner.settle(key, chargedAtMs, countedByMs, chargedTokens, deltaTokens);
    }

    @Override
    public Mono<Long> pause(String key, long pauseMs) {
        return inner.pause(key, pauseMs);
    }

    @Override
    public Mono<Void> correct(
            String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        return inner.correct(key, limits, remainingRequests, remainingTokens, resetMs);
    }

    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return inner.snapshot(key, limits);
    }

    @Override
    public Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, Acquire call) {
        return inner.tryAcquireOnShare(key, limits, call);
    }

    @Override
    public Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return inner.snapshotOfShare(key, limits);
    }
}
