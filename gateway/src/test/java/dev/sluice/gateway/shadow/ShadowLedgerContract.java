package dev.sluice.gateway.shadow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.quota.FakeClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ShadowLedgerStore} must do (in memory, Redis). Each test reads only its own tenants. */
abstract class ShadowLedgerContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final long MIN = 60_000L;
    final FakeClock clock = new FakeClock(T0 + 10 * MIN);
    ShadowLedgerStore ledger;
    String tenant;

    abstract ShadowLedgerStore newLedger(FakeClock clock);

    @BeforeEach
    void setUp() {
        ledger = newLedger(clock);
        tenant = "t-" + UUID.randomUUID();
    }

    ShadowMinute minute(int m, String who, Map<String, Long> live, Map<String, Long> draft) {
        return new ShadowMinute(T0 + m * MIN, who, "free", 3, live, draft);
    }

    List<ShadowMinute> mine(long from) {
        return ledger.since(from)
                .filter(x -> x.tenantId().startsWith(tenant))
                .collectList()
                .block();
    }

    @Test
    void addedCountsOfOneTenantMinuteSum() {
        ledger.add(List.of(minute(1, tenant, Map.of("passed", 2L), Map.of("rejected", 2L))))
                .block();
        ledger.add(List.of(minute(1, tenant, Map.of("passed", 1L, "delayed", 1L), Map.of("passed", 2L))))
                .block();
        assertThat(mine(T0))
                .containsExactly(
                        minute(1, tenant, Map.of("passed", 3L, "delayed", 1L), Map.of("rejected", 2L, "passed", 2L)));
    }

    @Test
    void sinceReadsTheMinutesStartingAtOrAfterIt() {
        ledger.add(List.of(
                        minute(2, tenant, Map.of("passed", 1L), Map.of("passed", 1L)),
                        minute(5, tenant + "-b", Map.of("passed", 4L), Map.of("rejected", 4L)),
                        minute(7, tenant, Map.of("rejected", 1L), Map.of("rejected", 1L))))
                .block();
        assertThat(mine(T0)).hasSize(3);
        assertThat(mine(T0 + 2 * MIN + 1))
                .extracting(ShadowMinute::minuteStartMs)
                .containsExactly(T0 + 5 * MIN, T0 + 7 * MIN);
        assertThat(mine(T0 + 7 * MIN)).extracting(ShadowMinute::tenantId).containsExactly(tenant);
        assertThat(mine(T0 + 8 * MIN)).isEmpty();
    }

    @Test
    void draftsOfDifferentVersionsAreKeptApart() {
        ShadowMinute v3 = minute(1, tenant, Map.of("passed", 1L), Map.of("rejected", 1L));
        ShadowMinute v4 = new ShadowMinute(T0 + MIN, tenant, "free", 4, Map.of("passed", 1L), Map.of("passed", 1L));
        ledger.add(List.of(v3, v4)).block();
        assertThat(mine(T0)).containsExactlyInAnyOrder(v3, v4);
    }

    @Test
    void minutesOlderThanTheRetentionAreGone() {
        ledger.add(List.of(minute(1, tenant, Map.of("passed", 1L), Map.of("passed", 1L))))
                .block();
        clock.set(T0 + 26 * 60 * MIN + MIN); // more than the retention after minute 1
        ledger.add(List.of(minute(26 * 60, tenant, Map.of("passed", 1L), Map.of("passed", 1L))))
                .block();
        assertThat(mine(T0)).extracting(ShadowMinute::minuteStartMs).containsExactly(T0 + 26 * 60 * MIN);
    }

    @Test
    void nothingAddedIsNothingRead() {
        ledger.add(List.of()).block();
        assertThat(mine(0)).isEmpty();
    }

    @Test
    void aRecordMustNotBeChangedAfterwards() {
        ShadowMinute m = minute(1, tenant, Map.of("passed", 1L), Map.of());
        assertThatThrownBy(() -> m.live().put("passed", 2L)).isInstanceOf(UnsupportedOperationException.class);
    }
}
