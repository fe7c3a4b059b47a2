package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MeterWindowTest {
    final MeterWindow window = new MeterWindow(60_000);

    @Test
    void withoutHistoryNothingIsKnownAboutTheWindow() {
        MeterWindow.Delta d = window.since(1_000, Map.of("a", 5.0));
        assertThat(d.coveredMs()).isZero();
        assertThat(d.get("a")).isZero();
    }

    @Test
    void whileHistoryIsShortTheChangeIsFromTheOldestSnapshotAndSaysHowLong() {
        window.record(0, Map.of("a", 2.0));
        window.record(5_000, Map.of("a", 3.0));
        MeterWindow.Delta d = window.since(20_000, Map.of("a", 10.0, "b", 4.0));
        assertThat(d.coveredMs()).isEqualTo(20_000);
        assertThat(d.get("a")).isEqualTo(8.0);
        assertThat(d.get("b"))
                .as("a meter born after the snapshot counts from zero")
                .isEqualTo(4.0);
    }

    @Test
    void theChangeIsOverTheLastWindowOnceHistoryIsLongEnough() {
        for (long t = 0; t <= 180_000; t += 5_000) window.record(t, Map.of("a", (double) t / 1000));
        MeterWindow.Delta d = window.since(182_000, Map.of("a", 182.0));
        // From the newest snapshot at least 60 s old: the one at 120 s.
        assertThat(d.coveredMs()).isEqualTo(62_000);
        assertThat(d.get("a")).isEqualTo(62.0);
    }

    @Test
    void aLateSnapshotIsIgnored() {
        window.record(10_000, Map.of("a", 1.0));
        window.record(5_000, Map.of("a", 100.0));
        assertThat(window.since(70_000, Map.of("a", 2.0)).get("a")).isEqualTo(1.0);
    }

    @Test
    void theP95IsTheFirstBucketHoldingNinetyFivePercent() {
        Map<String, Double> v = Map.of(
                "wait/default:*/count", 100.0,
                "wait/default:*/le/1000000", 50.0, // ≤ 1 ms
                "wait/default:*/le/10000000", 94.0, // ≤ 10 ms
                "wait/default:*/le/100000000", 100.0, // ≤ 100 ms
                "wait/other:*/count", 0.0);
        assertThat(OverviewHandler.p95Ms(v, "")).isEqualTo(100.0);
        assertThat(OverviewHandler.p95Ms(v, "default:*")).isEqualTo(100.0);
        assertThat(OverviewHandler.p95Ms(v, "other:*")).isNull();
        assertThat(OverviewHandler.p95Ms(Map.of(), "")).isNull();
    }

    @Test
    void waitsPastTheLastBucketReadAsItsBound() {
        Map<String, Double> v = Map.of(
                "wait/default:*/count", 100.0,
                "wait/default:*/le/1000000", 90.0, // ≤ 1 ms; 10 waits were longer than the last bucket
                "wait/default:*/le/2000000", 90.0);
        assertThat(OverviewHandler.p95Ms(v, "")).isEqualTo(2.0);
        assertThat(OverviewHandler.p95Ms(Map.of("wait/default:*/count", 3.0), ""))
                .as("no buckets")
                .isNull();
    }

    @Test
    void theP95IsTheBoundOfTheFirstBucketHoldingNinetyFivePercent() {
        // 95 of 100 waits within 10 ms, the rest within 1 s: the nearest rank, the 95th, is in the first bucket.
        Map<String, Double> v = Map.of(
                "wait/default:*/count", 100.0,
                "wait/default:*/le/10000000", 95.0,
                "wait/default:*/le/1000000000", 100.0);
        assertThat(OverviewHandler.p95Ms(v, "")).isEqualTo(10.0);
        Map<String, Double> slow = Map.of(
                "wait/default:*/count", 100.0,
                "wait/default:*/le/10000000", 94.0,
                "wait/default:*/le/1000000000", 100.0);
        // 94 within 10 ms: the 95th is in the 1 s bucket, read as its bound.
        assertThat(OverviewHandler.p95Ms(slow, "")).isCloseTo(1000.0, withinPercentage(0.1));
    }
}
