package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.config.ProviderSettings;
import reactor.core.publisher.Mono;

/**
 * Provider budgets, somewhere: Redis (one budget shared by every replica) or this process's
 * memory (one instance). Both run the {@link ProviderBudget} algorithm; one contract suite
 * tests both. A budget is named by provider and model, {@code default:gpt-4o}, or
 * {@code default:*} for the models that share the provider's catch-all limits
 * ({@link #key}). Time is the store's: Redis TIME, or the local clock.
 */
public interface ProviderBudgetStore {

    /** The budget a call to {@code model} at {@code provider} counts against. */
    static String key(ProviderSettings provider, String model) {
        boolean own = model != null && provider.models().containsKey(model);
        return provider.name() + ":" + (own ? model : ProviderSettings.ANY_MODEL);
    }

    /**
     * In one atomic step: checks the pause, the window's requests and tokens (and the input and
     * output windows, where {@code limits} have them) and the free slots, and if all allow,
     * charges the call's {@link Acquire#charge} and takes a slot held as its lease until released
     * or until {@code limits.leaseMs()} passes. Otherwise takes nothing and says why and for how long.
     */
    Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call);

    /**
     * A replica's slice, in one atomic step ({@link SliceAsk}, {@link ProviderBudget#lease}): its
     * settlements applied, its unspent rest given back, its slots kept or renewed, a new slice
     * taken. What {@link ReplicaLeases} spends from locally, so most calls need no round trip.
     */
    Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask);

    /** Frees the lease's slot. Idempotent: true only for the call that freed a live slot. */
    Mono<Boolean> release(String key, String leaseId);

    /**
     * Settles an ended call (see {@link ProviderBudget#settle}): {@code deltaTokens} from the
     * provider's usage, and the charge moved to the slot of {@code countedByMs} if that is later;
     * {@link Long#MIN_VALUE} when the answer proves nothing (no answer came).
     */
    Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens);

    /**
     * Corrects the charge made at {@code chargedAtMs} (the decision's {@code chargedAtMs}) by
     * signed deltas: a refund, or the usage reported against the estimate. Each window is touched
     * only when its delta is not zero.
     */
    Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta);

    /**
     * Pauses the whole budget, for every replica, for {@code pauseMs} from the store's now (an
     * upstream 429's retry-after; relative, so replica clocks do not matter). Returns the
     * pause's end in store time.
     */
    Mono<Long> pause(String key, long pauseMs);

    /**
     * Never shows more room than the upstream reports ({@code x-ratelimit-remaining-*}, -1 when
     * a dimension is not reported), until {@code resetMs} from now. See {@link ProviderBudget#correct}.
     */
    Mono<Void> correct(String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs);

    /** The budget now, taking nothing (expired leases are swept). */
    Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits);

    /**
     * {@link #tryAcquire} by the Redis-down policy, without waiting on the shared store: on this
     * replica's share of the limits. For a request with no time left to wait on Redis. A store
     * with nothing shared acquires as usual, reading the schedule.
     */
    default Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, Acquire call) {
        return tryAcquire(key, limits, call.withSchedule());
    }

    /** {@link #snapshot} of what {@link #tryAcquireOnShare} acquires from, without waiting on the shared store. */
    default Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return snapshot(key, limits);
    }

    /**
     * What other replicas' lines hold for this budget now, as the last share of the fair queues
     * said: a store that hands this replica room ahead of its need leaves theirs first. Nothing to
     * do for a store that holds no room ahead (only {@link ReplicaLeases} does).
     */
    default void queuedElsewhere(String key, Amounts queued) {}
}
