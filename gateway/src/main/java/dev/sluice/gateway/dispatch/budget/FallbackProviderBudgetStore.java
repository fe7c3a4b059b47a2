package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.LocalFallback;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The shared (Redis) budget, with this replica's share of it when Redis does not answer.
 * <p>Every shared call is bounded by the store timeout, and ends as soon as the store is marked
 * down (by this call or any other); a failure marks {@link StoreState} down and, from then until
 * the probe sees Redis again, calls go to a local
 * {@link InMemoryProviderBudgetStore} holding the provider's limits divided by
 * {@code replicas} (the most replicas that may run at once: each may spend its share with no
 * one to tell). So what a fail-open tier admitted is actually sent, at a pace the provider
 * accepts, instead of waiting in line for a budget that cannot answer.
 * <p>Recovery without a stampede: what the local budgets spent in their last minute is added
 * to the shared budget as Redis answers again, so the minute after an outage counts the
 * calls made during it, and the requests still waiting leave at the pace that leaves room for.
 */
public final class FallbackProviderBudgetStore implements ProviderBudgetStore {
    private static final Logger log = LoggerFactory.getLogger(FallbackProviderBudgetStore.class);

    private final ProviderBudgetStore shared;
    private final StoreState state;
    private final Duration timeout;
    private final int replicas;
    private final MeterRegistry meters;
    /** The local budgets, with the share each budget ran on there, to read back what it spent. */
    private final LocalFallback<InMemoryProviderBudgetStore, String, BudgetLimits> locals;
    /** Leases taken locally: released there, never in Redis. */
    private final Set<String> localLeases = ConcurrentHashMap.newKeySet();
    /**
     * Redis leases (id → budget) to release once Redis answers: released while it was out, or
     * taken by an acquire whose answer never came (the charge may have landed). Otherwise each
     * would hold a slot until its lease expires, and a short flap would shrink the fleet's concurrency.
     */
    private final Map<String, String> pendingReleases = new ConcurrentHashMap<>();

    public FallbackProviderBudgetStore(
            ProviderBudgetStore shared,
            Clock clock,
            StoreState state,
            Duration timeout,
            int replicas,
            MeterRegistry meters) {
        if (replicas < 1) throw new IllegalArgumentException("sluice.store.redis-down.replicas must be at least 1");
        this.shared = shared;
        this.state = state;
        this.timeout = timeout;
        this.replicas = replicas;
        this.meters = meters;
        Supplier<InMemoryProviderBudgetStore> fresh = () -> new InMemoryProviderBudgetStore(clock);
        this.locals = new LocalFallback<>(fresh.get(), fresh, state, clock, this::handOverLocalSpend);
        state.onRecovery(this::releasePending);
    }

    /** This replica's share of {@code limits}: each dimension divided by the replicas, at least 1. */
    public BudgetLimits share(BudgetLimits limits) {
        return new BudgetLimits(
                Math.max(1, limits.requestsPerMinute() / replicas),
                Math.max(1, limits.tokensPerMinute() / replicas),
                Math.max(1, limits.maxInFlight() / replicas),
                limits.leaseMs(),
                shareOf(limits.inputTokensPerMinute()),
                shareOf(limits.outputTokensPerMinute()));
    }

    /** A split limit's share: 0 (no such limit) stays 0. */
    private long shareOf(long limit) {
        return limit == 0 ? 0 : Math.max(1, limit / replicas);
    }

    private <T> Mono<T> sharedOr(Mono<T> call, Supplier<Mono<T>> fallback) {
        if (!state.up()) return fallback.get();
        return bounded(call).onErrorResume(e -> {
            state.failed(e);
            return fallback.get();
        });
    }

    /**
     * A shared call within the store timeout, and no longer than the store stays up: a lease
     * call the slices sent before another call found Redis gone would otherwise hold every
     * request waiting on it for the rest of its own timeout.
     */
    private <T> Mono<T> bounded(Mono<T> call) {
        return DecisionBudget.UNLIMITED.within(call, timeout, state);
    }

    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
        if (!state.up()) return localAcquire(key, limits, call);
        return bounded(Mono.defer(() -> shared.tryAcquire(key, limits, call)))
                // Given up by its caller (a request with no time left): the shared acquire may still land.
                .doOnCancel(() -> releaseLater(key, call.leaseId()))
                .onErrorResume(e -> {
                    state.failed(e);
                    pendingReleases.put(call.leaseId(), key); // the shared acquire may have landed: free its slot later
                    return localAcquire(key, limits, call);
                });
    }

    @Override
    public Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, Acquire call) {
        return localAcquire(key, limits, call);
    }

    @Override
    public Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return locals.local().snapshot(key, share(limits));
    }

    /** Frees a shared slot an abandoned acquire may have taken: Redis runs the release after it (one connection, in order). */
    private void releaseLater(String key, String leaseId) {
        shared.release(key, leaseId)
                .timeout(timeout.multipliedBy(4))
                .subscribe(null, e -> pendingReleases.put(leaseId, key));
    }

    private Mono<BudgetDecision> localAcquire(String key, BudgetLimits limits, Acquire call) {
        BudgetLimits mine = share(limits);
        InMemoryProviderBudgetStore local = locals.serve(key, mine);
        meters.counter("sluice.budget.local", "budget", key).increment();
        return local.tryAcquire(key, mine, call).doOnNext(d -> {
            if (d.admitted()) localLeases.add(call.leaseId());
        });
    }

    /**
     * A slice from Redis, or while it is out from this replica's share. A slice is spent where it
     * was granted; settlements that reach the other store meanwhile correct a charge it does not
     * have, which the window's bounds absorb (a flap costs at most one slice of accuracy).
     */
    @Override
    public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
        return sharedOr(Mono.defer(() -> shared.lease(key, limits, ask)), () -> {
            BudgetLimits mine = share(limits);
            InMemoryProviderBudgetStore local = locals.serve(key, mine);
            meters.counter("sluice.budget.local", "budget", key).increment();
            return local.lease(key, mine, ask);
        });
    }

    @Override
    public Mono<Boolean> release(String key, String leaseId) {
        if (localLeases.remove(leaseId)) return locals.local().release(key, leaseId);
        return sharedOr(Mono.defer(() -> shared.release(key, leaseId)), () -> {
            pendingReleases.put(leaseId, key); // released when Redis answers again
            return Mono.just(false);
        });
    }

    /** Redis answers again: free the slots of the leases that could not be released meanwhile. */
    void releasePending() {
        pendingReleases.forEach((leaseId, key) -> {
            pendingReleases.remove(leaseId);
            shared.release(key, leaseId)
                    .timeout(timeout.multipliedBy(4))
                    .subscribe(
                            null,
                            e -> log.debug("Lease {} not released ({}); it expires on its own", leaseId, e.toString()));
        });
    }

    /** Leases waiting for Redis to be released (tests). */
    int pendingReleases() {
        return pendingReleases.size();
    }

    @Override
    public Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        return sharedOr(
                Mono.defer(() -> shared.settle(key, chargedAtMs, countedByMs, chargedTokens, deltaTokens)),
                () -> locals.local().settle(key, chargedAtMs, countedByMs, chargedTokens, deltaTokens));
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta) {
        return sharedOr(
                Mono.defer(() -> shared.adjust(key, chargedAtMs, delta)),
                () -> locals.local().adjust(key, chargedAtMs, delta));
    }

    @Override
    public Mono<Long> pause(String key, long pauseMs) {
        return sharedOr(
                Mono.defer(() -> shared.pause(key, pauseMs)),
                () -> locals.local().pause(key, pauseMs));
    }

    @Override
    public Mono<Void> correct(
            String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        // The provider's remaining counts are for the whole account: locally, only this replica's share of them.
        return sharedOr(
                Mono.defer(() -> shared.correct(key, limits, remainingRequests, remainingTokens, resetMs)),
                () -> locals.local()
                        .correct(
                                key,
                                share(limits),
                                remainingRequests < 0 ? -1 : remainingRequests / replicas,
                                remainingTokens < 0 ? -1 : remainingTokens / replicas,
                                resetMs));
    }

    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return sharedOr(
                Mono.defer(() -> shared.snapshot(key, limits)),
                () -> locals.local().snapshot(key, share(limits)));
    }

    /**
     * Redis answers again: charge the shared budget with what a local budget spent in its window
     * (as spent now: the conservative side, it stays counted a little longer than it would have).
     */
    private void handOverLocalSpend(InMemoryProviderBudgetStore spent, String key, BudgetLimits mine, long now) {
        spent.snapshot(key, mine).subscribe(s -> {
            AmountsDelta used =
                    new AmountsDelta(s.usedRequests(), s.usedTokens(), s.usedInputTokens(), s.usedOutputTokens());
            if (used.isZero()) return;
            shared.adjust(key, now, used)
                    .timeout(timeout.multipliedBy(4))
                    .subscribe(
                            null,
                            e -> log.warn("Could not hand budget {}'s local spend to Redis: {}", key, e.toString()));
            log.info(
                    "Budget {}: {} tokens and {} requests spent on this replica while Redis was out now count in the shared budget",
                    key,
                    s.usedTokens(),
                    s.usedRequests());
        });
    }
}
