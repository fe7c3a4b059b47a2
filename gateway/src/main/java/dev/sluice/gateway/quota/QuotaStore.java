package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.WindowLimit;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A tenant's sliding windows, somewhere: Redis (shared by every replica) or this process's
 * memory. Both run the {@link TenantWindows} algorithm; one contract suite tests both.
 */
public interface QuotaStore {

    /** Checks every window and charges all of them, or none, in one atomic step. */
    Mono<QuotaDecision> acquire(String tenantId, List<WindowLimit> windows, long tokens, long requests);

    /** Corrects the charge made at {@code chargedAtMs} by signed deltas (refund when negative). */
    Mono<Void> adjust(
            String tenantId, List<WindowLimit> windows, long chargedAtMs, long deltaTokens, long deltaRequests);

    /** One charge's correction, for {@link #adjustAll}. */
    record Correction(long chargedAtMs, long deltaTokens, long deltaRequests) {}

    /** Several corrections of one tenant's charges, in one step where the store can (one round trip in Redis). */
    default Mono<Void> adjustAll(String tenantId, List<WindowLimit> windows, List<Correction> corrections) {
        return Flux.fromIterable(corrections)
                .concatMap(c -> adjust(tenantId, windows, c.chargedAtMs(), c.deltaTokens(), c.deltaRequests()))
                .then();
    }

    /** The windows' state now, charging nothing. */
    Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows);
}
