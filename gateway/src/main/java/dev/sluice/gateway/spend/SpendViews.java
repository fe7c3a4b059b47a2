package dev.sluice.gateway.spend;

import dev.sluice.gateway.quota.SpendUsage;
import dev.sluice.gateway.quota.WindowUsage;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes of spend, for the admin API and the tenant's {@code GET /v1/sluice/usage}: USD
 * as exact decimals (six places, from micro-dollars), instants as ISO-8601. Pure.
 */
public final class SpendViews {
    private SpendViews() {}

    /** One spend budget now: its cap for the period, what is used, what is left, when it turns. */
    public record BudgetView(
            String period,
            BigDecimal limitUsd,
            BigDecimal usedUsd,
            BigDecimal remainingUsd,
            double utilisation,
            String resetsAt,
            long resetMs) {}

    /** One token window now (tokens and requests). */
    public record WindowView(
            String name,
            long seconds,
            long limitTokens,
            long usedTokens,
            long remainingTokens,
            long limitRequests,
            long usedRequests,
            long remainingRequests,
            long resetMs) {}

    /** One ledger day (UTC). */
    public record DayView(String date, long inputTokens, long outputTokens, long requests, BigDecimal usd) {}

    /** A sum of ledger days, from and to inclusive. */
    public record TotalsView(
            String from, String to, long inputTokens, long outputTokens, long requests, BigDecimal usd) {}

    public static BigDecimal usd(long micros) {
        return BigDecimal.valueOf(micros, 6);
    }

    /** @param nowMs the instant the budgets were read at (the quota decision's), which their {@code resetMs} count from */
    public static List<BudgetView> budgets(List<SpendUsage> spends, long nowMs) {
        return spends.stream()
                .map(s -> new BudgetView(
                        s.period(),
                        usd(s.limitMicros()),
                        usd(s.usedMicros()),
                        usd(s.remainingMicros()),
                        Math.round(s.utilisation() * 10_000) / 10_000.0,
                        Instant.ofEpochMilli(nowMs + s.resetMs()).toString(),
                        s.resetMs()))
                .toList();
    }

    public static List<WindowView> windows(List<WindowUsage> windows) {
        return windows.stream()
                .map(w -> new WindowView(
                        w.name(),
                        w.seconds(),
                        w.limitTokens(),
                        w.usedTokens(),
                        w.remainingTokens(),
                        w.limitRequests(),
                        w.usedRequests(),
                        w.remainingRequests(),
                        w.resetMs()))
                .toList();
    }

    /** Every day of {@code range}, in order, a day without a row at zero: a chart's bars. */
    public static List<DayView> series(LedgerRange range, List<LedgerDay> rows) {
        Map<LocalDate, LedgerTotals> byDay = new HashMap<>();
        for (LedgerDay r : rows) byDay.merge(r.day(), r.totals(), LedgerTotals::plus);
        List<DayView> out = new ArrayList<>(range.days());
        for (LocalDate d = range.from(); !d.isAfter(range.to()); d = d.plusDays(1)) {
            LedgerTotals t = byDay.getOrDefault(d, LedgerTotals.ZERO);
            out.add(new DayView(d.toString(), t.inputTokens(), t.outputTokens(), t.requests(), usd(t.micros())));
        }
        return out;
    }

    public static TotalsView totals(LedgerRange range, List<LedgerDay> rows) {
        LedgerTotals t = LedgerTotals.ZERO;
        for (LedgerDay r : rows) if (range.contains(r.day())) t = t.plus(r.totals());
        return new TotalsView(
                range.from().toString(),
                range.to().toString(),
                t.inputTokens(),
                t.outputTokens(),
                t.requests(),
                usd(t.micros()));
    }
}
