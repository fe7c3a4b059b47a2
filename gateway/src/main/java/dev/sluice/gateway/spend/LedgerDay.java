package dev.sluice.gateway.spend;

import java.time.LocalDate;
import java.util.Comparator;
import java.util.Objects;

/**
 * One row of the ledger: a tenant's totals for one UTC day, with the tier it was last served on
 * that day.
 */
public record LedgerDay(LocalDate day, String tenant, String tier, LedgerTotals totals) {
    /** Day first, then tenant: the export's order. */
    public static final Comparator<LedgerDay> ORDER =
            Comparator.comparing(LedgerDay::day).thenComparing(LedgerDay::tenant);

    public LedgerDay {
        Objects.requireNonNull(day, "day");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(totals, "totals");
        if (tier == null) tier = "";
    }
}
