package dev.sluice.gateway.abuse;

import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Abuse flags. At most one open flag per tenant, enforced by the store (two samplers racing
 * still open one). Updates are compare-and-set on the stored flag, so two reviewers cannot
 * both close the same flag.
 */
public interface FlagStore {

    /** Stores {@code flag} (status open) unless the tenant has an open flag; the stored flag, or empty if one was open. */
    Mono<Flag> openIfNone(Flag flag);

    Mono<Flag> find(String id);

    /** Flags newest first, of one status or all (null), at most {@code limit}. */
    Flux<Flag> list(FlagStatus status, int limit);

    /** How many flags are open now, for every tenant (the {@code sluice.abuse.flags.open} gauge). */
    default Mono<Long> countOpen() {
        return list(FlagStatus.OPEN, Integer.MAX_VALUE).count();
    }

    /** The tenant's most recent flag, open or closed. */
    Mono<Flag> latestFor(String tenantId);

    /**
     * Applies {@code change} to the stored flag and writes the result if nobody wrote in
     * between (retrying a few times if somebody did). Errors from {@code change} pass through;
     * empty if there is no such flag.
     */
    Mono<Flag> update(String id, UnaryOperator<Flag> change);
}
