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
        return new UsageSample(T0 + minute * MIN, "free", tokens, 3, tokens / 10_000.0, "minute", Map.of("passed", 3L, "rejected", 1L));
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
        assertThat(points.get(2).stages()).containsEntry("passed", 3L).containsEntry("rejected", 1L).containsEntry("busy", 0L);
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
        assertThat(history.since(tenant, T0 + 7 * MIN).collectList().block()).extracting(UsageSample::tokens)
                .containsExactly(7L, 8L, 9L);
    }

    @Test
    void theSeriesKeepsTheRetentionAndDropsOlderPoints() {
        for (int m = 0; m < 1500; m++) history.append(tenant, sample(m, m), 1440).block();
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
