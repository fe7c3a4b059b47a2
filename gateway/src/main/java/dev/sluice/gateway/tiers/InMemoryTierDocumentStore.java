package dev.sluice.gateway.tiers;

import java.time.Clock;
import reactor.core.publisher.Mono;

/** The single-instance store: one field under a lock. Edits last until the process stops. */
public final class InMemoryTierDocumentStore implements TierDocumentStore {
    private final Clock clock;
    private TierDocument current;

    public InMemoryTierDocumentStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Mono<TierDocument> seedIfAbsent(String yaml, String source) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                if (current == null) current = new TierDocument(yaml, 1, source, clock.instant());
                return current;
            }
        });
    }

    @Override
    public Mono<TierDocument> restoreIfAbsent(TierDocument doc) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                if (current == null) current = doc;
                return current;
            }
        });
    }

    @Override
    public Mono<TierDocument> current() {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                return current;
            }
        });
    }

    @Override
    public Mono<Long> version() {
        return current().map(TierDocument::version).defaultIfEmpty(0L);
    }

    @Override
    public Mono<WriteOutcome> replace(long expectedVersion, String yaml, String updatedBy) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                long now = current == null ? 0 : current.version();
                if (now != expectedVersion) return new WriteOutcome(false, current);
                current = new TierDocument(yaml, now + 1, updatedBy, clock.instant());
                return new WriteOutcome(true, current);
            }
        });
    }
}
