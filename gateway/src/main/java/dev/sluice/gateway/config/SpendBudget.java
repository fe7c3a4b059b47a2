package dev.sluice.gateway.config;

import java.time.ZoneId;
import java.util.Objects;

/**
 * A tier's spend budgets, in money: at most {@code dayMicros} per calendar day and
 * {@code monthMicros} per calendar month, the periods turning at midnight in {@code zone}.
 * Each is checked on its own; either may be absent (0). A day budget above the month's is
 * allowed: it simply never binds (the month refuses first), and refusing it would make lowering
 * one budget an edit of both.
 *
 * @param dayMicros   micro-dollars per day; 0: no daily budget
 * @param monthMicros micro-dollars per month; 0: no monthly budget
 * @param zone        where the calendar periods turn (an IANA zone id, e.g. UTC, Europe/Paris)
 */
public record SpendBudget(long dayMicros, long monthMicros, ZoneId zone) {
    /** The default zone, named as operators write it ({@code UTC}, not {@code Z}). */
    public static final ZoneId UTC = ZoneId.of("UTC");

    /** No spend cap: what a tier without {@code spend:} gets. */
    public static final SpendBudget NONE = new SpendBudget(0, 0, UTC);

    /** The largest budget a period may declare: USD 1 billion, below {@link Money#MAX_MICROS}. */
    public static final long MAX_BUDGET_MICROS = 1_000_000_000L * Money.MICROS_PER_USD;

    public SpendBudget {
        Objects.requireNonNull(zone, "zone");
        if (dayMicros < 0 || monthMicros < 0) throw new IllegalArgumentException("a spend budget must not be negative");
        if (dayMicros > MAX_BUDGET_MICROS || monthMicros > MAX_BUDGET_MICROS)
            throw new IllegalArgumentException("a spend budget is at most USD 1,000,000,000 per period");
    }

    /** Whether any period is capped. */
    public boolean capped() {
        return dayMicros > 0 || monthMicros > 0;
    }
}
