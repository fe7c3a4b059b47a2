package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.YearMonth;
import org.junit.jupiter.api.Test;

class LedgerRangeTest {
    @Test
    void aMonthIsItsFirstToItsLastDay() {
        LedgerRange feb = LedgerRange.parse("2028-02", null, null);
        assertThat(feb).isEqualTo(new LedgerRange(LocalDate.parse("2028-02-01"), LocalDate.parse("2028-02-29")));
        assertThat(feb.days()).isEqualTo(29);
        assertThat(feb.months()).containsExactly(YearMonth.parse("2028-02"));
    }

    @Test
    void fromAndToAreBothIncludedUpTo400Days() {
        LedgerRange r = LedgerRange.parse(null, "2026-01-01", "2027-02-04");
        assertThat(r.days()).isEqualTo(400);
        assertThat(r.months()).hasSize(14);
        assertThat(LedgerRange.parse(null, "2026-12-06", "2026-12-06").days()).isEqualTo(1);
    }

    @Test
    void badRangesSayWhatIsWrong() {
        assertThatThrownBy(() -> LedgerRange.parse(null, "2026-01-01", "2027-02-05"))
                .hasMessage("the range holds 401 days; at most 400");
        assertThatThrownBy(() -> LedgerRange.parse(null, "2026-12-07", "2026-12-06"))
                .hasMessage("'to' (2026-12-06) is before 'from' (2026-12-07)");
        assertThatThrownBy(() -> LedgerRange.parse(null, "2026-12-06", null))
                .hasMessage("give month=YYYY-MM, or both from and to as YYYY-MM-DD");
        assertThatThrownBy(() -> LedgerRange.parse(null, null, null))
                .hasMessage("give month=YYYY-MM, or both from and to as YYYY-MM-DD");
        assertThatThrownBy(() -> LedgerRange.parse("2026-12", "2026-12-01", null))
                .hasMessage("give either month or from and to, not both");
        assertThatThrownBy(() -> LedgerRange.parse("2026-13", null, null))
                .hasMessage("month must be YYYY-MM, got '2026-13'");
        assertThatThrownBy(() -> LedgerRange.parse(null, "2026-02-30", "2026-03-01"))
                .hasMessage("from must be a date YYYY-MM-DD, got '2026-02-30'");
        assertThatThrownBy(() -> LedgerRange.parse(null, "2026-02-01", "yesterday"))
                .hasMessage("to must be a date YYYY-MM-DD, got 'yesterday'");
    }

    @Test
    void theLedgersDayIsTheUtcDay() {
        assertThat(LedgerRange.dayOf(
                        java.time.Instant.parse("2026-12-06T23:59:59.999Z").toEpochMilli()))
                .isEqualTo(LocalDate.parse("2026-12-06"));
        assertThat(LedgerRange.dayOf(
                        java.time.Instant.parse("2026-12-07T00:00:00Z").toEpochMilli()))
                .isEqualTo(LocalDate.parse("2026-12-07"));
    }
}
