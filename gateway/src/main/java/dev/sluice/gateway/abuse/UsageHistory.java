package dev.sluice.gateway.abuse;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Each tenant's per-minute usage series, bounded: at most {@code retentionMinutes} of
 * history (at least 24 h at one point a minute), older points dropped on append.
 * One point per minute: appending a minute again replaces it.
 */
public interface UsageHistory {

    Mono<Void> append(String tenantId, UsageSample sample, int retentionMinutes);

    /** The points whose minute starts at or after {@code fromMs}, oldest first. */
    Flux<UsageSample> since(String tenantId, long fromMs);
}
