package dev.sluice.gateway.drafts;

import java.time.Instant;
import reactor.core.publisher.Mono;

/** The single-instance store: one field under a lock, and the last version, kept through a deletion. */
public final class InMemoryTierDraftStore implements TierDraftStore {
    private TierDraft current;
    private long version;

    @Override
    public Mono<TierDraft> current() {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                return current;
            }
        });
    }

    @Override
    public Mono<Long> version() {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                return version;
            }
        });
    }

    @Override
    public Mono<Outcome> save(long expectedVersion, String yaml, String author, Instant now) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                if (expectedVersion >= 0 && expectedVersion != version) return new Outcome(false, current);
                boolean shadow = current != null && current.shadow();
                current = new TierDraft(yaml, ++version, author, now, shadow, shadow ? now : null);
                return new Outcome(true, current);
            }
        });
    }

    @Override
    public Mono<Outcome> shadow(boolean on, Instant now) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                if (current == null) return new Outcome(false, null);
                if (current.shadow() == on) return new Outcome(true, current);
                TierDraft c = current;
                current = new TierDraft(c.yaml(), ++version, c.author(), c.savedAt(), on, on ? now : null);
                return new Outcome(true, current);
            }
        });
    }

    @Override
    public Mono<Outcome> delete(long expectedVersion) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                if (current == null || (expectedVersion >= 0 && expectedVersion != version))
                    return new Outcome(false, current);
                current = null;
                version++;
                return new Outcome(true, null);
            }
        });
    }
}
