package dev.sluice.gateway.dispatch.budget;

import reactor.core.publisher.Mono;

/** Passes every call to the store it wraps; each test overrides the call it changes (goes silent, stalls, counts). */
public class DelegatingBudgetStore implements ProviderBudgetStore {
    protected final ProviderBudgetStore inner;

    public DelegatingBudgetStore(ProviderBudgetStore inner) {
        this.inner = inner;
    }

    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, long tokens, String leaseId) {
        return inner.tryAcquire(key, limits, tokens, leaseId);
    }

    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, long tokens, long inputTokens, long outputTokens,
                                           String leaseId, boolean needSchedule) {
        if (!limits.split()) return tryAcquire(key, limits, tokens, leaseId, needSchedule); // through the overridable call
        return inner.tryAcquire(key, limits, tokens, inputTokens, outputTokens, leaseId, needSchedule);
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
    public Mono<Void> adjust(String key, long chargedAtMs, long deltaTokens, long deltaRequests, long deltaInput,
                             long deltaOutput) {
        return inner.adjust(key, chargedAtMs, deltaTokens, deltaRequests, deltaInput, deltaOutput);
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, long deltaTokens, long deltaRequests) {
        return inner.adjust(key, chargedAtMs, deltaTokens, deltaRequests);
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
    public Mono<Void> correct(String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        return inner.correct(key, limits, remainingRequests, remainingTokens, resetMs);
    }

    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return inner.snapshot(key, limits);
    }

    @Override
    public Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, long tokens, long inputTokens,
                                                  long outputTokens, String leaseId) {
        return inner.tryAcquireOnShare(key, limits, tokens, inputTokens, outputTokens, leaseId);
    }

    @Override
    public Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return inner.snapshotOfShare(key, limits);
    }
}
