package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.SpendBudget;
import java.util.ArrayList;
import java.util.List;

/**
 * One spend budget's calendar window as the quota charges it: a counter of micro-dollars for the
 * period now, named (and keyed in Redis) by the period, e.g. {@code spend:day:2026-12-06} under
 * {@code sluice:q:{tenant}:}. A new period is a new counter; the old one expires an hour after its
 * end ({@link #GRACE_MS}: a call that straddles the turn still settles into the period it was
 * charged in).
 *
 * @param period   {@code day} or {@code month}
 * @param capMicros the budget for the period
 * @param endMs    when the period turns (the next midnight in the budget's zone)
 */
public record SpendLimit(String name, String period, long capMicros, long endMs) {
    public static final String PREFIX = "spend:";
    /** How long a period's counter outlives the period: settlements of calls that straddle the turn. */
    public static final long GRACE_MS = 3_600_000L;

    /** The budget's periods that contain {@code nowMs}: the day's, then the month's, each where it is capped. */
    public static List<SpendLimit> of(SpendBudget budget, long nowMs) {
        if (!budget.capped()) return List.of();
        List<SpendLimit> out = new ArrayList<>(2);
        if (budget.dayMicros() > 0) {
            CalendarPeriod d = CalendarPeriod.day(nowMs, budget.zone());
            out.add(new SpendLimit(PREFIX + "day:" + d.label(), "day", budget.dayMicros(), d.endMs()));
        }
        if (budget.monthMicros() > 0) {
            CalendarPeriod m = CalendarPeriod.month(nowMs, budget.zone());
            out.add(new SpendLimit(PREFIX + "month:" + m.label(), "month", budget.monthMicros(), m.endMs()));
        }
        return List.copyOf(out);
    }

    /** Whether a quota answer's blocking name is a spend budget's, at any level ({@link QuotaScope}). */
    public static boolean isSpend(String name) {
        return name != null && QuotaScope.baseName(name).startsWith(PREFIX);
    }
}
