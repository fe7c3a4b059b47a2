package dev.sluice.gateway.shadow;

import reactor.core.publisher.Flux;

/**
 * The shadow's decisions per tenant and minute, kept 24 h (Redis shared by replicas, or memory):
 * what the console's what-if reads. Written by the shadow evaluator, read by the admin API.
 */
public interface ShadowLedger {
    /** Every tenant-minute recorded since {@code fromMs} (minute starts at or after it), oldest first per tenant. */
    Flux<ShadowMinute> since(long fromMs);
}
