package dev.sluice.gateway.spend;

import java.time.LocalDate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The spend ledger: per tenant per UTC day, the tokens in and out, the requests and the
 * micro-dollars of its settled requests, at the serving provider's price. {@link #settled} is
 * called on the request path: it only adds to this process's memory and never waits; the Redis
 * adapter ships what it holds in the background (every second) and at shutdown. Days are UTC
 * whatever a spend budget's zone: a ledger day is the same 24 hours for every tenant, so an
 * export adds up across tenants.
 */
public interface SpendLedger {
    /** How long a day is kept: a month's export and a 30-day chart are always there. */
    int KEPT_DAYS = 400;

    /** One settled request's usage, counted in the UTC day of {@code nowMs}. */
    void settled(long nowMs, String tenantId, String tierName, long inputTokens, long outputTokens, long micros);

    /** The tenant's days from {@code from} to {@code to} (inclusive) that hold anything, in order. */
    Flux<LedgerDay> days(String tenantId, LocalDate from, LocalDate to);

    /** Every tenant's days in the range that hold anything, by day then tenant. */
    Flux<LedgerDay> all(LocalDate from, LocalDate to);

    /** Ships what this process holds (Redis); a no-op where memory is the store. */
    default Mono<Void> flush() {
        return Mono.empty();
    }
}
