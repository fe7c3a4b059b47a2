package dev.sluice.gateway.shadow;

import java.util.Collection;
import reactor.core.publisher.Mono;

/**
 * The ledger as the recorder writes it: counts added to tenant-minutes (a minute recorded by two
 * replicas is one minute with both counts). Redis ({@code redis/RedisShadowLedger}, shared) or memory
 * ({@code memory/InMemoryShadowLedger}); {@code ShadowLedgerContract} tests both. Kept {@link #RETENTION_MS}.
 */
public interface ShadowLedgerStore extends ShadowLedger {
    /** 24 h of what-if, and an hour to spare for the minute being read as it turns. */
    long RETENTION_MS = 25 * 3_600_000L;

    /** Adds each record's counts to its tenant-minute's. */
    Mono<Void> add(Collection<ShadowMinute> increments);
}
