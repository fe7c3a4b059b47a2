package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.SpendUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

class BudgetUtilisationTest {
    static SpendUsage day(long cap, long used) {
        return new SpendUsage("spend:day:2026-12-06", "day", cap, used, 1_000);
    }

    static SpendUsage month(long cap, long used) {
        return new SpendUsage("spend:month:2026-12", "month", cap, used, 1_000);
    }

    @Test
    void tenantsAreCountedPerTierAndPeriodAbove80AndAt100() {
        BudgetUtilisation u = new BudgetUtilisation();
        u.add("free", List.of(day(1_000, 800), month(10_000, 100))); // exactly 80 %: not above
        u.add("free", List.of(day(1_000, 801), month(10_000, 10_000))); // above 80 %; the month spent
        u.add("free", List.of(day(1_000, 1_200))); // past its cap by a settlement: above and at 100
        u.add("pro", List.of(day(1_000, 900)));
        assertThat(u.count("free", "day", BudgetUtilisation.ABOVE_80)).isEqualTo(2);
        assertThat(u.count("free", "day", BudgetUtilisation.AT_100)).isEqualTo(1);
        assertThat(u.count("free", "month", BudgetUtilisation.ABOVE_80)).isEqualTo(1);
        assertThat(u.count("free", "month", BudgetUtilisation.AT_100)).isEqualTo(1);
        assertThat(u.count("pro", "day", BudgetUtilisation.ABOVE_80)).isEqualTo(1);
        assertThat(u.count("pro", "month", BudgetUtilisation.ABOVE_80)).isZero();
        assertThat(u.count("enterprise", "day", BudgetUtilisation.AT_100)).isZero();
    }

    @Test
    void anUncappedBudgetCountsNowhere() {
        BudgetUtilisation u = new BudgetUtilisation();
        u.add("free", List.of(day(0, 5)));
        assertThat(u.count("free", "day", BudgetUtilisation.ABOVE_80)).isZero();
        assertThat(u.count("free", "day", BudgetUtilisation.AT_100)).isZero();
    }
}
