package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CeilingDetectorTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final long MIN = 60_000L;
    final CeilingDetector detector = new CeilingDetector(0.90, 15);

    static UsageSample at(int minute, double utilisation) {
        return new UsageSample(
                T0 + minute * MIN, "free", (long) (utilisation * 10_000), 10, utilisation, "minute", Map.of(), null);
    }

    static List<UsageSample> flat(int from, int to, double u) {
        List<UsageSample> out = new ArrayList<>();
        for (int m = from; m < to; m++) out.add(at(m, u));
        return out;
    }

    @Test
    void fifteenMinutesAtTheThresholdFlagFourteenDoNot() {
        List<UsageSample> series = flat(0, 15, 0.90);
        assertThat(detector.evaluate(series.subList(0, 14), T0 + 13 * MIN, 0, false))
                .isEmpty();
        var finding = detector.evaluate(series, T0 + 14 * MIN, 0, false);
        assertThat(finding).isPresent();
        assertThat(finding.get().run()).isEqualTo(new CeilingDetector.Run(T0, 15));
        assertThat(finding.get().evidence()).hasSize(15);
    }

    @Test
    void aMinuteBelowTheThresholdBreaksTheRun() {
        List<UsageSample> series = new ArrayList<>(flat(0, 20, 0.95));
        series.set(10, at(10, 0.89));
        assertThat(detector.trailingRun(series, T0 + 19 * MIN, 0).minutes()).isEqualTo(9);
        assertThat(detector.evaluate(series, T0 + 19 * MIN, 0, false)).isEmpty();
    }

    @Test
    void aMinuteWithNoSampleIsIdleAndBreaksTheRun() {
        List<UsageSample> series = new ArrayList<>(flat(0, 20, 1.0));
        series.remove(7); // the tenant sent nothing in minute 7
        assertThat(detector.trailingRun(series, T0 + 19 * MIN, 0).minutes()).isEqualTo(12);
        assertThat(detector.evaluate(series, T0 + 19 * MIN, 0, false)).isEmpty();
        series.addAll(flat(20, 23, 1.0));
        assertThat(detector.evaluate(series, T0 + 22 * MIN, 0, false)).isPresent();
    }

    @Test
    void theRunMustEndWithTheMinuteJustSampled() {
        List<UsageSample> series = flat(0, 30, 1.0);
        assertThat(detector.trailingRun(series, T0 + 30 * MIN, 0).minutes()).isZero();
    }

    @Test
    void nothingIsRaisedWhileAFlagIsOpen() {
        assertThat(detector.evaluate(flat(0, 60, 1.0), T0 + 59 * MIN, 0, true)).isEmpty();
    }

    @Test
    void afterAReviewTheNextFlagNeedsAWholeFreshRun() {
        List<UsageSample> series = flat(0, 60, 1.0);
        long reviewedAt = T0 + 20 * MIN + 30_000;
        assertThat(detector.evaluate(series, T0 + 34 * MIN, reviewedAt, false)).isEmpty(); // 21..34: 14 minutes
        var finding = detector.evaluate(series, T0 + 35 * MIN, reviewedAt, false);
        assertThat(finding).isPresent();
        assertThat(finding.get().run()).isEqualTo(new CeilingDetector.Run(T0 + 21 * MIN, 15));
    }

    @Test
    void evidenceKeepsHalfAnHourOfContextBeforeTheRun() {
        List<UsageSample> series = new ArrayList<>(flat(0, 40, 0.3));
        series.addAll(flat(40, 55, 0.99));
        var finding = detector.evaluate(series, T0 + 54 * MIN, 0, false).orElseThrow();
        assertThat(finding.evidence()).hasSize(45);
        assertThat(finding.evidence().get(0).minuteStartMs()).isEqualTo(T0 + 10 * MIN);
    }
}
