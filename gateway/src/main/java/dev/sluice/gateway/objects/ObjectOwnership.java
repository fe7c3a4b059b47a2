package dev.sluice.gateway.objects;

import dev.sluice.gateway.store.DecisionBudget;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Which tenant owns each provider object (file, batch, stored response, ...) created through
 * Sluice. Redis-backed when shared by replicas, in memory otherwise; {@code ObjectOwnershipContract}
 * tests both. An id never claimed (made before Sluice recorded owners, or straight at the
 * provider) has no owner, and so belongs to no tenant.
 */
public interface ObjectOwnership {
    /**
     * Records {@code record} for {@code objectId} unless the id already has one, and answers the
     * record that holds afterwards: {@code record} itself, or the earlier one (an id is never
     * handed from one tenant to another).
     */
    Mono<ObjectRecord> claim(String objectId, ObjectRecord record);

    /**
     * Replaces the record of an id {@code record}'s owner holds (a response's context, known once
     * its answer has ended); an id nobody holds, or another owner's, is left as it is.
     */
    Mono<Void> update(String objectId, ObjectRecord record);

    /** The id's record, or empty when nobody owns it. Keeps the record alive (it is in use). */
    Mono<ObjectRecord> owner(String objectId);

    /** The records of those ids that have one, in one call (a list page, a body's references). */
    Mono<Map<String, ObjectRecord>> owners(List<String> objectIds);

    /**
     * {@link #owner} for a request deciding on it: a store that waits on Redis waits at most what is
     * left of {@code budget}, and fails as if Redis were down once it is spent.
     */
    default Mono<ObjectRecord> owner(String objectId, DecisionBudget budget) {
        return owner(objectId);
    }

    /** {@link #owners} for a request deciding on them, within what is left of {@code budget}. */
    default Mono<Map<String, ObjectRecord>> owners(List<String> objectIds, DecisionBudget budget) {
        return owners(objectIds);
    }
}
