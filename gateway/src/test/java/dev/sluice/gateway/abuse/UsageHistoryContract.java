package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link UsageHistory} must do (in memory, Redis). */
abstract class UsageHistoryContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final long MIN = 60_000L;
    UsageHistory history;
    String tenant;

    abstract UsageHistory newHistory();

    @BeforeEach
    void setUp() {
        history = newHistory();
        tenant = "t-" + UUID.randomUUID();
    }

    static UsageSample sample(int minute, long tokens) {
        return new UsageSample(
                T0 + minute * MIN,
                "free",
                tokens,
                3,
                tokens / 10_000.0,
                "minute",
                Map.of("passed", 3L, "rejected", 1L),
                null);
    }

    List<UsageSample> all() {
        return history.since(tenant, 0).collectList().block();
    }

    @Test
    void pointsComeBackOldestFirstWithEveryField() {
        history.append(tenant, sample(0, 1000), 1440).block();
        history.append(tenant, sample(2, 9500), 1440).block();
        history.append(tenant, sample(1, 5000), 1440).block();
        List<UsageSample> points = all();
        assertThat(points).extracting(UsageSample::tokens).containsExactly(1000L, 5000L, 9500L);
        assertThat(points.get(2)).isEqualTo(sample(2, 9500));
        assertThat(points.get(2).stages())
                .containsEntry("passed", 3L)
                .containsEntry("rejected", 1L)
                .containsEntry("busy", 0L);
    }

    @Test
    void theMinutesCeilingSignalComesBackWhole() {
        UsageSample pinned = new UsageSample(
                T0,
                "free",
                8888,
                11,
                0.8888,
                "minute",
                Map.of("passed", 11L, "delayed", 3L),
                new Ceiling("minute", 0.9312, 0.9696, 304, 808, 2, 3, Ceiling.REFUSED, 1.0));
        UsageSample hour = new UsageSample(
                T0 + MIN,
                "free",
                5000,
                5,
                0.99,
                "hour",
                Map.of("passed", 5L),
                new Ceiling("hour", 0.991, 0.9999, 24, 1000, 0, 0, Ceiling.ROOM, 1.0));
        UsageSample nothingAdmitted = new UsageSample(
                T0 + 2 * MIN,
                "free",
                9000,
                9,
                0.9,
                "minute",
                Map.of("rejected", 4L),
                new Ceiling("minute", 0.9, 0.9, -1, 1500, 4, 0, Ceiling.REFUSED, 1.0));
        history.append(tenant, pinned, 1440).block();
        history.append(tenant, hour, 1440).block();
        history.append(tenant, nothingAdmitted, 1440).block();
        history.append(tenant, sample(3, 100), 1440).block(); // a point without the signal stays without it
        List<UsageSample> points = all();
        assertThat(points).containsExactly(pinned, hour, nothingAdmitted, sample(3, 100));
        assertThat(points.get(3).ceiling()).isNull();
        assertThat(points.get(3).pressure()).isEqualTo(0.01);
        assertThat(points.get(0).pressure()).isEqualTo(1.0);
    }

    @Test
    void aMinuteAppendedAgainIsReplaced() {
        history.append(tenant, sample(5, 1000), 1440).block();
        history.append(tenant, sample(5, 2000), 1440).block();
        assertThat(all()).extracting(UsageSample::tokens).containsExactly(2000L);
    }

    @Test
    void sinceFiltersByMinute() {
        for (int m = 0; m < 10; m++) history.append(tenant, sample(m, m), 1440).block();
        assertThat(history.since(tenant, T0 + 7 * MIN).collectList().block())
                .extracting(UsageSample::tokens)
                .containsExactly(7L, 8L, 9L);
    }

    @Test
    void theSeriesKeepsTheRetentionAndDropsOlderPoints() {
        for (int m = 0; m < 1500; m++)
            history.append(tenant, sample(m, m), 1440).block();
        List<UsageSample> points = all();
        assertThat(points).hasSize(1440);
        assertThat(points.get(0).minuteStartMs()).isEqualTo(T0 + 60 * MIN);
        // a tenant back after a long gap: everything older than the retention goes at once
        history.append(tenant, sample(5000, 1), 1440).block();
        assertThat(all()).hasSize(1);
    }

    @Test
    void anUnknownTenantHasNoPoints() {
        assertThat(all()).isEmpty();
    }
}
