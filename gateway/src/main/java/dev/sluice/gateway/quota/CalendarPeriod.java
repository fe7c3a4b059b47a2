package dev.sluice.gateway.quota;

import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;

/**
 * The calendar day or month containing an instant, in a zone: where a spend budget's period
 * starts and ends. Pure: the instant is an argument. A period runs from its first instant (local
 * midnight, or the first instant after it where a DST gap swallows midnight) to the next's, so a
 * day is 23 or 25 hours long when the clocks change in it.
 *
 * @param label   the period as its Redis key names it: {@code 2026-12-06} for a day, {@code 2026-12} for a month
 * @param startMs its first instant, in epoch milliseconds
 * @param endMs   the next period's first instant (exclusive)
 */
public record CalendarPeriod(String label, long startMs, long endMs) {
    public static CalendarPeriod day(long nowMs, ZoneId zone) {
        LocalDate d = Instant.ofEpochMilli(nowMs).atZone(zone).toLocalDate();
        return new CalendarPeriod(d.toString(), startOf(d, zone), startOf(d.plusDays(1), zone));
    }

    public static CalendarPeriod month(long nowMs, ZoneId zone) {
        YearMonth m = YearMonth.from(Instant.ofEpochMilli(nowMs).atZone(zone));
        return new CalendarPeriod(
                m.toString(), startOf(m.atDay(1), zone), startOf(m.plusMonths(1).atDay(1), zone));
    }

    public long lengthMs() {
        return endMs - startMs;
    }

    private static long startOf(LocalDate d, ZoneId zone) {
        return d.atStartOfDay(zone).toInstant().toEpochMilli();
    }
}
