package dev.sluice.gateway.drafts;

import java.time.Instant;
import reactor.core.publisher.Mono;

/**
 * Where the one draft of the tiers document lives: Redis (replicas poll its version) or this
 * process's memory. Every change is a single atomic step that raises the version; the version
 * survives a deletion, so a later draft never reuses an earlier one's number.
 */
public interface TierDraftStore {
    /** A change's result: {@code draft} is the draft after it (null when there is none). */
    record Outcome(boolean written, TierDraft draft) {}

    /** The draft; empty when there is none. */
    Mono<TierDraft> current();

    /** The version of the last change (0 if there never was a draft): what replicas poll. */
    Mono<Long> version();

    /**
     * Saves {@code yaml} as the draft, if the draft's version is still {@code expectedVersion}
     * ({@code -1}: whatever it is). A draft in shadow stays in shadow, its since restarting at
     * {@code now}: what the shadow saw before was another text.
     */
    Mono<Outcome> save(long expectedVersion, String yaml, String author, Instant now);

    /** Turns shadow on (since {@code now}; a no-op when on) or off. Not written when there is no draft. */
    Mono<Outcome> shadow(boolean on, Instant now);

    /** Removes the draft if its version is still {@code expectedVersion} ({@code -1}: whatever it is). */
    Mono<Outcome> delete(long expectedVersion);
}
