package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.Money;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tenant's spend counters, one per budget period, in micro-dollars: the pure twin of the spend
 * part of {@code quota_acquire.lua} and {@code quota_adjust.lua}. A counter holds at most
 * {@link Money#MAX_MICROS}, a cap above it counts as it, and every correction saturates there or at
 * zero, exactly as the Lua (whose numbers are doubles) does. Not thread-safe: {@link TenantWindows}
 * is locked per tenant.
 */
final class SpendCounters {
    private static final class Counter {
        long used;
        final long endMs;

        Counter(long endMs) {
            this.endMs = endMs;
        }
    }

    private final Map<String, Counter> counters = new HashMap<>();

    /** Forgets the periods over for longer than {@link SpendLimit#GRACE_MS} (Redis lets their keys expire). */
    void drop(long nowMs) {
        counters.values().removeIf(c -> nowMs >= c.endMs + SpendLimit.GRACE_MS);
    }

    long used(SpendLimit l) {
        Counter c = counters.get(l.name());
        return c == null ? 0 : c.used;
    }

    /** Whether {@code cost} fits in every budget's room. */
    boolean fits(List<SpendLimit> limits, long cost) {
        long c = Money.clamp(cost);
        for (SpendLimit l : limits) if (c > room(l)) return false;
        return true;
    }

    private long room(SpendLimit l) {
        return Math.max(0, Money.clamp(l.capMicros()) - used(l));
    }

    /** Charges a cost that fitted. */
    void charge(List<SpendLimit> limits, long cost) {
        long c = Money.clamp(cost);
        if (c == 0) return;
        for (SpendLimit l : limits) counters.computeIfAbsent(l.name(), n -> new Counter(l.endMs())).used += c;
    }

    /** Until {@code cost} fits in {@code l}: 0 now, -1 never (more than the whole budget), else at the period's turn. */
    long waitMs(SpendLimit l, long nowMs, long cost) {
        long c = Money.clamp(cost);
        if (c > Money.clamp(l.capMicros())) return -1;
        if (c <= room(l)) return 0;
        return Math.max(1, l.endMs() - nowMs);
    }

    /**
     * A correction of a charge made in {@code l}'s period, while its counter may be kept: a negative
     * one where the counter holds something, a positive one also where there is none (a fail-open
     * tenant's use during an outage, handed over; a charge whose counter was lost).
     */
    void adjust(List<SpendLimit> limits, long nowMs, long deltaMicros) {
        if (deltaMicros == 0) return;
        for (SpendLimit l : limits) {
            if (nowMs >= l.endMs() + SpendLimit.GRACE_MS) continue;
            Counter c = counters.get(l.name());
            if (c == null) {
                if (deltaMicros < 0) continue;
                c = new Counter(l.endMs());
                counters.put(l.name(), c);
            }
            c.used = Money.clamp(Money.add(c.used, deltaMicros));
            // An empty counter is no counter (as Redis deletes the key): a later correction finds none,
            // whether or not the tenant's state was evicted as idle meanwhile. Nothing unsettled can be
            // in it, since a settlement never takes back more than its own reservation.
            if (c.used == 0) counters.remove(l.name());
        }
    }

    SpendUsage usage(SpendLimit l, long nowMs) {
        return new SpendUsage(l.name(), l.period(), l.capMicros(), used(l), Math.max(0, l.endMs() - nowMs));
    }

    boolean isIdle(long nowMs) {
        drop(nowMs);
        for (Counter c : counters.values()) if (c.used > 0) return false;
        return true;
    }
}
