package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import org.junit.jupiter.api.Test;

/** CPU and Redis counts per request from two readings around a slice. */
class ReadingsTest {

    @Test
    void aSlicesCostIsTheGrowthOfEachCounterOverTheRequestsItSent() {
        Readings before = new Readings(
                2_000_000_000L,
                500_000_000L,
                7_000_000_000L,
                1_000_000_000L,
                3_000_000_000L,
                1_000,
                200,
                10_000_000_000L);
        Readings after = new Readings(
                2_600_000_000L,
                510_000_000L,
                7_150_000_000L,
                1_090_000_000L,
                3_450_000_000L,
                39_000,
                2_200,
                16_000_000_000L);
        Readings slice = after.minus(before);

        // 3,000 requests (500/s for 6 s): 600 ms of the arm's CPU is 200 µs each.
        assertThat(Readings.perRequestUs(slice.armCpuNs(), 3_000)).isEqualTo(200.0);
        assertThat(Readings.perRequestUs(slice.armTotalCpuNs(), 3_000)).isCloseTo(203.33, offset(0.01));
        assertThat(Readings.perRequestUs(slice.redisCpuNs(), 3_000)).isEqualTo(50.0);
        assertThat(Readings.perRequest(slice.redisEvalsha(), 3_000)).isCloseTo(0.6667, offset(1e-4));
        assertThat(Readings.perRequest(slice.redisCalls(), 3_000)).isEqualTo(12.666666666666666);
        // 450 ms of the load generator's CPU over 6 s of wall clock: 7.5% of one core.
        assertThat(Readings.cores(slice.driverCpuNs(), slice.wallNs())).isEqualTo(0.075);
    }

    @Test
    void slicesAddUpAndAnUnreadableCounterStaysUnknownRatherThanCountingAsZero() {
        Readings a = new Readings(100, 10, 50, 5, 20, 7, 3, 1_000);
        Readings b = new Readings(300, 0, 50, 5, 20, 7, 1, 1_000);
        assertThat(Readings.ZERO.plus(a).plus(b)).isEqualTo(new Readings(400, 10, 100, 10, 40, 14, 4, 2_000));

        // The direct arm has no process: -1 in both readings. A counter that went down (a restart) is unknown too.
        Readings direct =
                new Readings(-1, -1, 50, 5, 20, 7, 3, 1_000).minus(new Readings(-1, -1, 40, 4, 10, 9, 1, 500));
        assertThat(direct.armCpuNs()).isEqualTo(-1);
        assertThat(direct.redisCalls()).isEqualTo(-1);
        assertThat(direct.redisEvalsha()).isEqualTo(2);
        assertThat(Readings.perRequestUs(direct.armCpuNs(), 1_000)).isNaN();
        assertThat(Readings.ZERO.plus(a).plus(direct).armCpuNs()).isEqualTo(-1);
        assertThat(Readings.perRequestUs(1_000, 0)).isNaN();
    }
}
