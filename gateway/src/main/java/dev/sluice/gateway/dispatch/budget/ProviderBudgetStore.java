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
     * In one atomic step: checks the pause, the window's requests and tokens and the free
     * slots, and if all allow, charges one request and {@code tokens} and takes a slot held as
     * lease {@code leaseId} (unique per attempt) until released or until {@code limits.leaseMs()}
     * passes. Otherwise takes nothing and says why and for how long.
     */
    Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, long tokens, String leaseId);

    /**
     * The same, saying whether the caller needs the decision's leaving schedule
     * ({@link BudgetSnapshot#leaving}). Reading it is most of an acquire's cost in Redis, and it
     * only serves the door's wait estimates: a store may leave it out (null) when
     * {@code needSchedule} is false, the acquire was admitted and the window is under half full.
     */
    default Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, long tokens, String leaseId, boolean needSchedule) {
        return tryAcquire(key, limits, tokens, leaseId);
    }

    /**
     * The same, for a provider that meters input and output apart: also checks and charges
     * {@code inputTokens} (the calibrated prompt) in the input window and {@code outputTokens}
     * (max_tokens) in the output window, where {@code limits} have them; all or nothing with the
     * rest. A store that has no such windows can only serve budgets without the split.
     */
    default Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, long tokens, long inputTokens, long outputTokens,
                                            String leaseId, boolean needSchedule) {
        if (limits.split()) return Mono.error(new UnsupportedOperationException("this store has no input/output windows"));
        return tryAcquire(key, limits, tokens, leaseId, needSchedule);
    }

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

    /** Corrects the charge made at {@code chargedAtMs} (the decision's {@code chargedAtMs}) by signed deltas. */
    Mono<Void> adjust(String key, long chargedAtMs, long deltaTokens, long deltaRequests);

    /**
     * The same, with signed deltas for the input and output windows (each touched only when its
     * delta is not zero).
     */
    default Mono<Void> adjust(String key, long chargedAtMs, long deltaTokens, long deltaRequests, long deltaInput,
                              long deltaOutput) {
        if (deltaInput != 0 || deltaOutput != 0) {
            return Mono.error(new UnsupportedOperationException("this store has no input/output windows"));
        }
        return adjust(key, chargedAtMs, deltaTokens, deltaRequests);
    }

    /** Reconciles the estimate with the actual usage: {@code delta = actual - estimate}. */
    default Mono<Void> adjustTokens(String key, long chargedAtMs, long deltaTokens) {
        return adjust(key, chargedAtMs, deltaTokens, 0);
    }

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
     * {@link #tryAcquire(String, BudgetLimits, long, long, long, String, boolean)} by the Redis-down
     * policy, without waiting on the shared store: on this replica's share of the limits. For a
     * request with no time left to wait on Redis. A store with nothing shared acquires as usual.
     */
    default Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, long tokens, long inputTokens,
                                                   long outputTokens, String leaseId) {
        return tryAcquire(key, limits, tokens, inputTokens, outputTokens, leaseId, true);
    }

    /** {@link #snapshot} of what {@link #tryAcquireOnShare} acquires from, without waiting on the shared store. */
    default Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return snapshot(key, limits);
    }
}
