package dev.sluice.gateway.tenant;

import dev.sluice.gateway.store.DecisionBudget;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Organisations (groups of tenants with shared caps). Redis-backed when shared by replicas, in
 * memory otherwise; {@code OrganisationStoreContract} tests both. Read on every request of a member
 * tenant, so the Redis store remembers what it read for a second, as {@link TenantStore} does: a
 * change applies at once on the replica it was made through, within a second on the others.
 * Membership is the tenant's ({@link Tenant#organisation()}), not kept here.
 */
public interface OrganisationStore {
    Mono<Organisation> findById(String id);

    /**
     * The same for a request: a store that waits on Redis waits at most what is left of
     * {@code budget}, and answers from what it last read once it is spent or Redis is down.
     */
    default Mono<Organisation> findById(String id, DecisionBudget budget) {
        return findById(id);
    }

    /** Every organisation, by id. */
    Flux<Organisation> findAll();

    /** Creates it unless its id exists; true if created. */
    Mono<Boolean> create(Organisation organisation);

    /** Overwrites an existing one (its name, windows and budgets). */
    Mono<Void> save(Organisation organisation);

    /** Deletes it; false if there was none. Its members are the caller's to check first. */
    Mono<Boolean> delete(String id);
}
