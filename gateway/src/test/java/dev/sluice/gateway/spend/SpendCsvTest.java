package dev.sluice.gateway.spend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpendCsvTest {
    @Test
    void aHeaderThenOneRowPerTenantDayWithUsdExactToTheMicroDollar() {
        String csv = SpendCsv.write(List.of(
                new LedgerDay(LocalDate.parse("2026-12-06"), "acme", "free", new LedgerTotals(100, 50, 2, 450)),
                new LedgerDay(
                        LocalDate.parse("2026-12-07"),
                        "big",
                        "pro",
                        new LedgerTotals(9_000_000_000L, 1, 1, 9_007_199_254_740_991L))));
        assertThat(csv)
                .isEqualTo("date,tenant,tier,input_tokens,output_tokens,requests,usd,organisation\r\n"
                        + "2026-12-06,acme,free,100,50,2,0.000450,\r\n"
                        + "2026-12-07,big,pro,9000000000,1,1,9007199254.740991,\r\n");
    }

    @Test
    void theLastColumnIsTheTenantsOrganisationEmptyForNonMembers() {
        List<LedgerDay> rows = List.of(
                new LedgerDay(LocalDate.parse("2026-12-06"), "acme", "free", new LedgerTotals(1, 1, 1, 1)),
                new LedgerDay(LocalDate.parse("2026-12-06"), "solo", "free", new LedgerTotals(1, 1, 1, 1)));
        assertThat(SpendCsv.write(rows, java.util.Map.of("acme", "big,co")))
                .endsWith("2026-12-06,acme,free,1,1,1,0.000001,\"big,co\"\r\n"
                        + "2026-12-06,solo,free,1,1,1,0.000001,\r\n");
    }

    @Test
    void anEmptyRangeIsTheHeaderAlone() {
        assertThat(SpendCsv.write(List.of())).isEqualTo(SpendCsv.HEADER + "\r\n");
    }

    @Test
    void valuesACsvReaderOrASpreadsheetWouldMisreadAreQuoted() {
        assertThat(SpendCsv.field("a,b")).isEqualTo("\"a,b\"");
        assertThat(SpendCsv.field("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(SpendCsv.field("=1+1")).isEqualTo("'=1+1");
        assertThat(SpendCsv.field("plain-id")).isEqualTo("plain-id");
    }
}
