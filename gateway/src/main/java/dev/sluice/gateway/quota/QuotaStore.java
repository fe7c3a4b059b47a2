package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.WindowLimit;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A tenant's sliding windows and spend budgets, somewhere: Redis (shared by every replica) or this
 * process's memory. Both run the {@link TenantWindows} algorithm; one contract suite tests both.
 * The operations take the spend budgets; the forms without them are the same with none.
 */
public interface QuotaStore {

    /** Checks every window and charges all of them, or none, in one atomic step. */
    default Mono<QuotaDecision> acquire(String tenantId, List<WindowLimit> windows, long tokens, long requests) {
        return acquire(tenantId, windows, List.of(), tokens, requests, 0);
    }

    /**
     * The same with the request's {@code costMicros} charged to each spend budget's period now, in
     * the same atomic step (one round trip in Redis): all or nothing.
     */
    default Mono<QuotaDecision> acquire(
            String tenantId,
            List<WindowLimit> windows,
            List<SpendLimit> spends,
            long tokens,
            long requests,
            long costMicros) {
        return acquire(tenantId, windows, spends, new Charge(tokens, requests, costMicros));
    }

    /** What one admission charges: tokens and requests to every window, the cost to every spend budget. */
    record Charge(long tokens, long requests, long costMicros) {}

    /** The same with {@code charge}: the one admitting operation a store implements. */
    Mono<QuotaDecision> acquire(String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge);

    /** Corrects the charge made at {@code chargedAtMs} by signed deltas (refund when negative). */
    default Mono<Void> adjust(
            String tenantId, List<WindowLimit> windows, long chargedAtMs, long deltaTokens, long deltaRequests) {
        return adjust(tenantId, windows, List.of(), chargedAtMs, deltaTokens, deltaRequests, 0);
    }

    /** The same, and its cost by {@code deltaMicros} in the spend budgets' periods it was charged in. */
    default Mono<Void> adjust(
            String tenantId,
            List<WindowLimit> windows,
            List<SpendLimit> spends,
            long chargedAtMs,
            long deltaTokens,
            long deltaRequests,
            long deltaMicros) {
        return adjustAll(
                tenantId,
                windows,
                spends,
                List.of(new Correction(chargedAtMs, deltaTokens, deltaRequests, deltaMicros)));
    }

    /** One charge's correction, for {@link #adjustAll}. */
    record Correction(long chargedAtMs, long deltaTokens, long deltaRequests, long deltaMicros) {
        public Correction(long chargedAtMs, long deltaTokens, long deltaRequests) {
            this(chargedAtMs, deltaTokens, deltaRequests, 0);
        }
    }

    /** Several corrections of one tenant's charges, in one step where the store can (one round trip in Redis). */
    default Mono<Void> adjustAll(String tenantId, List<WindowLimit> windows, List<Correction> corrections) {
        return adjustAll(tenantId, windows, List.of(), corrections);
    }

    /**
     * The same for charges made in {@code spends}' periods too: the one operation a store implements to
     * correct charges (a single correction is a list of one).
     */
    Mono<Void> adjustAll(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections);

    /** The windows' state now, charging nothing. */
    Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows);

    /** The windows' and the spend budgets' state now, charging nothing. */
    default Mono<QuotaDecision> peek(String tenantId, List<WindowLimit> windows, List<SpendLimit> spends) {
        return acquire(tenantId, windows, spends, 0, 0, 0);
    }
}
