package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.WindowLimit;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A tenant's sliding windows, somewhere: Redis (shared by every replica) or this process's
 * memory. Both run the {@link TenantWindows} algorithm; one contract suite tests both.
 */
public interface QuotaStore {

    /** Checks every window and charges all of them, or none, in one atomic step. */
    Mono<QuotaDecision> acquire(String tenantId, List<WindowLimit> windows, long tokens, long requests);

    /** Corrects the charge made at {@code chargedAtMs} by signed deltas (refund when negative). */
    Mono<Void> adjust(String tenantId, List<WindowLimit> windows, long chargedAtMs, long deltaTokens, long deltaRequests);

    /** The windows' state now, charging nothing. */
    Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows);
}
