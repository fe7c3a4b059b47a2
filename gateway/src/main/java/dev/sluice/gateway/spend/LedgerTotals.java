package dev.sluice.gateway.spend;

import dev.sluice.gateway.config.Money;

/**
 * What a tenant used in one ledger day, or any sum of days: tokens in and out, requests that
 * reached a provider, and micro-dollars at the serving provider's price. Every sum saturates
 * (never wraps to a negative bill).
 */
public record LedgerTotals(long inputTokens, long outputTokens, long requests, long micros) {
    public static final LedgerTotals ZERO = new LedgerTotals(0, 0, 0, 0);

    public LedgerTotals {
        if (inputTokens < 0 || outputTokens < 0 || requests < 0 || micros < 0)
            throw new IllegalArgumentException("ledger totals are never negative");
    }

    public LedgerTotals plus(LedgerTotals o) {
        return new LedgerTotals(
                Money.add(inputTokens, o.inputTokens),
                Money.add(outputTokens, o.outputTokens),
                Money.add(requests, o.requests),
                Money.add(micros, o.micros));
    }

    public boolean isZero() {
        return inputTokens == 0 && outputTokens == 0 && requests == 0 && micros == 0;
    }
}
