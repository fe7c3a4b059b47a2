package dev.sluice.gateway.spend;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A range of ledger days, both ends included, at most {@link SpendLedger#KEPT_DAYS} long. Pure:
 * parsing and checking what a caller asked for, with a message that says what is wrong.
 */
public record LedgerRange(LocalDate from, LocalDate to) {
    public LedgerRange {
        if (to.isBefore(from)) throw new IllegalArgumentException("'to' (" + to + ") is before 'from' (" + from + ")");
        long days = ChronoUnit.DAYS.between(from, to) + 1;
        if (days > SpendLedger.KEPT_DAYS)
            throw new IllegalArgumentException("the range holds " + days + " days; at most " + SpendLedger.KEPT_DAYS);
    }

    /** The UTC day of an instant: the ledger's day. */
    public static LocalDate dayOf(long epochMs) {
        return Instant.ofEpochMilli(epochMs).atOffset(ZoneOffset.UTC).toLocalDate();
    }

    /** The {@code days} days ending with {@code today}. */
    public static LedgerRange lastDays(LocalDate today, int days) {
        return new LedgerRange(today.minusDays(days - 1L), today);
    }

    public static LedgerRange month(YearMonth m) {
        return new LedgerRange(m.atDay(1), m.atEndOfMonth());
    }

    /**
     * From the export's parameters: {@code month=YYYY-MM}, or {@code from} and {@code to} as
     * {@code YYYY-MM-DD}; exactly one of the two forms.
     *
     * @throws IllegalArgumentException with the caller's message
     */
    public static LedgerRange parse(String month, String from, String to) {
        boolean hasMonth = month != null && !month.isBlank();
        boolean hasDays = (from != null && !from.isBlank()) || (to != null && !to.isBlank());
        if (hasMonth && hasDays) throw new IllegalArgumentException("give either month or from and to, not both");
        if (hasMonth) {
            try {
                return month(YearMonth.parse(month.trim()));
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("month must be YYYY-MM, got '" + month + "'");
            }
        }
        if (from == null || from.isBlank() || to == null || to.isBlank())
            throw new IllegalArgumentException("give month=YYYY-MM, or both from and to as YYYY-MM-DD");
        return new LedgerRange(date("from", from), date("to", to));
    }

    private static LocalDate date(String name, String raw) {
        try {
            return LocalDate.parse(raw.trim());
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(name + " must be a date YYYY-MM-DD, got '" + raw + "'");
        }
    }

    public boolean contains(LocalDate day) {
        return !day.isBefore(from) && !day.isAfter(to);
    }

    public int days() {
        return (int) ChronoUnit.DAYS.between(from, to) + 1;
    }

    /** The calendar months the range touches, in order. */
    public List<YearMonth> months() {
        List<YearMonth> out = new ArrayList<>();
        for (YearMonth m = YearMonth.from(from); !m.isAfter(YearMonth.from(to)); m = m.plusMonths(1)) out.add(m);
        return out;
    }
}
