package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
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
