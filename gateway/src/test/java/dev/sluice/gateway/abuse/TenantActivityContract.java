package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.WindowUsage;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link TenantActivity} must do (in memory, Redis). */
abstract class TenantActivityContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    final FakeClock clock = new FakeClock(T0);
    TenantActivity activity;
    String a;
    String b;

    abstract TenantActivity newActivity(FakeClock clock);

    @BeforeEach
    void setUp() {
        activity = newActivity(clock);
        a = "a-" + UUID.randomUUID();
        b = "b-" + UUID.randomUUID();
    }

    MinuteActivity minute(long start) {
        activity.flush().block();
        return activity.minute(start).block();
    }

    @Test
    void theTenantsSeenInAMinuteWithTheirTierAndStages() {
        clock.set(T0 + 5_000);
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "downgraded");
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        activity.requestSeen(b, "pro");
        activity.stageTaken(b, "rejected");
        clock.set(T0 + 59_999);
        activity.stageTaken(b, "busy");

        MinuteActivity m = minute(T0);
        assertThat(m.tierByTenant()).containsEntry(a, "free").containsEntry(b, "pro");
        assertThat(m.stages(a)).isEqualTo(Map.of("passed", 2L, "downgraded", 1L));
        assertThat(m.stages(b)).isEqualTo(Map.of("rejected", 1L, "busy", 1L));
    }

    @Test
    void minutesAreKeptApartAndCountsAddUpAcrossFlushes() {
        clock.set(T0 + 59_000);
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        activity.flush().block();
        activity.stageTaken(a, "passed");
        clock.set(T0 + 60_000);
        activity.requestSeen(b, "free");
        activity.stageTaken(b, "delayed");

        MinuteActivity first = minute(T0);
        assertThat(first.tierByTenant()).containsOnlyKeys(a);
        assertThat(first.stages(a)).isEqualTo(Map.of("passed", 2L));
        MinuteActivity second = minute(T0 + 60_000);
        assertThat(second.tierByTenant()).containsOnlyKeys(b);
        assertThat(second.stages(b)).isEqualTo(Map.of("delayed", 1L));
    }

    /** A quota answer: the minute window of 10,000 tokens and 60 requests holding {@code used}, the hour a tenth of it. */
    static QuotaDecision answer(boolean admitted, long used, String blocking) {
        return new QuotaDecision(
                admitted,
                T0,
                admitted ? 0 : 1_500,
                blocking,
                List.of(
                        new WindowUsage("minute", 60, 10_000, 60, used, used / 800, 60_000),
                        new WindowUsage("hour", 3600, 600_000, 3600, used, used / 800, 3_600_000)));
    }

    @Test
    void theQuotasAnswersAddUpPerWindowByTheirOwnRule() {
        clock.set(T0 + 1_000);
        activity.quotaAnswered(a, 800, answer(true, 8_000, null), false);
        activity.quotaAnswered(a, 900, answer(true, 9_700, null), false);
        activity.flush().block(); // what was shipped merges with what comes after: max, min and sums alike
        activity.quotaAnswered(a, 700, answer(false, 9_700, "minute"), true);
        activity.quotaAnswered(a, 800, answer(false, 9_700, "minute"), false);
        activity.quotaAnswered(a, 800, answer(true, 9_000, null), false);
        clock.set(T0 + 60_000);
        activity.quotaAnswered(b, 800, answer(true, 800, null), false);

        Map<String, Long> p = minute(T0).pressure(a);
        assertThat(p)
                .containsEntry("* asked", 5L)
                .containsEntry("* asked-tokens", 4_000L)
                .containsEntry("minute answers", 5L)
                .containsEntry("minute fill", 800_000L + 970_000 + 970_000 + 970_000 + 900_000)
                .containsEntry("minute peak", 970_000L)
                .containsEntry("minute room", 300L)
                .containsEntry("minute room-requests", 48L)
                .containsEntry("minute refused", 1L)
                .containsEntry("minute held", 1L)
                .containsEntry("hour peak", 16_167L)
                .containsEntry("hour room", 590_300L)
                .doesNotContainKey("hour refused");
        var signal = CeilingSignal.measure(p, List.of()).orElseThrow();
        assertThat(signal.window()).isEqualTo("minute");
        assertThat(signal.reason()).isEqualTo(Ceiling.REFUSED);
        assertThat(signal.typicalTokens()).isEqualTo(800);
        assertThat(signal.roomTokens()).isEqualTo(300);
        assertThat(signal.refused()).isEqualTo(1);
        assertThat(signal.held()).isEqualTo(1);
        assertThat(minute(T0 + 60_000).pressure(b)).containsEntry("minute peak", 80_000L);
        assertThat(minute(T0 + 60_000).pressure(a)).isEmpty();
    }

    @Test
    void anUnknownStageIsIgnoredNotThrown() {
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "teleported");
        activity.stageTaken(null, "passed");
        assertThat(minute(T0).stages(a)).isEmpty();
    }

    @Test
    void aQuietMinuteIsEmpty() {
        assertThat(minute(T0 + 3_600_000).isEmpty()).isTrue();
    }
}
