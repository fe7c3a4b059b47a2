package dev.sluice.gateway.tiers;

import reactor.core.publisher.Mono;

/**
 * Where the tiers document lives: Redis (every replica polls its version) or this process's
 * memory. A write is a compare-and-set on the version, so two operators editing at once
 * cannot silently overwrite each other.
 */
public interface TierDocumentStore {

    /** The result of a conditional write: written, or refused because {@code document} (the current one) is newer. */
    record WriteOutcome(boolean written, TierDocument document) {}

    /** Stores {@code yaml} as version 1 unless a document exists; returns the document in force. */
    Mono<TierDocument> seedIfAbsent(String yaml, String source);

    /**
     * Puts back {@code doc} (its text and version) unless a document exists: what a replica had
     * in force, after Redis came back empty. Returns the document in force.
     */
    Mono<TierDocument> restoreIfAbsent(TierDocument doc);

    /** The current document; empty if none was ever seeded. */
    Mono<TierDocument> current();

    /** The current version only: what replicas poll (0 if none). */
    Mono<Long> version();

    /** Writes {@code yaml} as version {@code expectedVersion + 1} if the stored version is still {@code expectedVersion}. */
    Mono<WriteOutcome> replace(long expectedVersion, String yaml, String updatedBy);
}
