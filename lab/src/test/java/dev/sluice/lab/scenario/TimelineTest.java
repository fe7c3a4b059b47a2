package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimelineTest {

    @Test
    void countsEachSecondFromTheStartWithEmptySecondsKept() {
        Timeline t = new Timeline(10_000);
        t.admitted(10_000, 800);
        t.admitted(10_999, 800);
        t.providerError(12_500);
        t.refusal(12_999);
        t.admitted(9_000, 5); // before the start: second 0, never a negative index
        assertThat(t.points())
                .containsExactly(
                        new TimelinePoint(0, 1_605, 1_605, 3, 0, 0),
                        new TimelinePoint(1, 0, 1_605, 3, 0, 0), // nothing released: the calls are still in flight
                        new TimelinePoint(2, 0, 1_605, 3, 1, 1));
    }

    @Test
    void aBurstOfTheWholeMinutesBudgetInOneSecondReadsOneHundredPercentNotAnOvershoot() {
        long tpm = 300_000;
        Timeline t = new Timeline(0);
        for (int i = 0; i < 375; i++) t.admitted(200 + i, 800); // 300,000 tokens within second 0
        t.refusal(61_500); // keeps the timeline going past the window's turn
        List<TimelinePoint> points = t.points();
        // The old chart read this second against a per-second share of the minute: 60 times the "limit".
        assertThat(points.get(0).admittedTokens() / (tpm / 60.0)).isEqualTo(60.0);
        // The provider's own measure: its window is full, exactly at the limit, and stays so for the minute.
        assertThat(points.get(0).tokensInWindow()).isEqualTo(tpm);
        assertThat(points.get(59).tokensInWindow()).isEqualTo(tpm);
        assertThat(points.get(60).tokensInWindow()).isEqualTo(tpm); // admitted at 0.2 s and later: in until 60.2 s
        assertThat(points.get(61).tokensInWindow()).isZero();
        assertThat(Timeline.peakWindow(points)).isEqualTo(tpm);
        assertThat(Timeline.firstSecondOver(points, tpm)).isEqualTo(-1);
    }

    @Test
    void crossingTheLimitShowsTheSecondWhereItHappened() {
        Timeline t = new Timeline(1_000);
        t.admitted(1_000, 200_000);
        t.admitted(31_000, 90_000); // 290,000: below 300,000
        t.admitted(42_400, 20_000); // 310,000 in the window at 41.4 s: over
        t.admitted(61_000, 5_000); // the first admission left the window at 60 s: 115,000
        List<TimelinePoint> points = t.points();
        assertThat(Timeline.firstSecondOver(points, 300_000)).isEqualTo(41);
        assertThat(points.get(40).tokensInWindow()).isEqualTo(290_000);
        assertThat(points.get(41).tokensInWindow()).isEqualTo(310_000);
        assertThat(points.get(59).tokensInWindow()).isEqualTo(310_000);
        assertThat(points.get(60).tokensInWindow()).isEqualTo(115_000);
        assertThat(Timeline.firstSecondOver(points, 310_000)).isEqualTo(-1);
    }

    @Test
    void theWindowIsTheProvidersOwnLength() {
        Timeline t = new Timeline(0, 10_000); // a scaled "minute"
        t.admitted(0, 100);
        t.admitted(9_999, 50);
        t.refusal(20_500);
        List<TimelinePoint> points = t.points();
        assertThat(points.get(9).tokensInWindow()).isEqualTo(150);
        assertThat(points.get(10).tokensInWindow())
                .isEqualTo(50); // the first left at exactly 10 s, as the provider counts
        assertThat(points.get(19).tokensInWindow()).isEqualTo(50); // in until 19.999 s
        assertThat(points.get(20).tokensInWindow()).isZero();
    }

    @Test
    void callsInFlightAreEachSecondsMostAndCarryOverQuietSeconds() {
        Timeline t = new Timeline(0);
        t.admitted(100, 1);
        t.admitted(200, 1);
        t.admitted(300, 1);
        t.released(400);
        t.released(400);
        t.released(2_100);
        t.released(2_100); // more releases than calls can only reach zero
        t.admitted(3_000, 1);
        t.released(3_000);
        t.admitted(3_000, 1); // at the same instant, in the provider's order: one in flight, never two
        List<TimelinePoint> points = t.points();
        assertThat(points).extracting(TimelinePoint::inFlight).containsExactly(3, 1, 1, 1);
        assertThat(points.get(2).admittedTokens()).isZero();
    }

    @Test
    void theFullestWindowIsTheLargestSumOfConsecutiveSeconds() {
        List<TimelinePoint> points = new ArrayList<>();
        long[] admitted = {100, 0, 300, 50, 0, 0, 400};
        for (int i = 0; i < admitted.length; i++) points.add(new TimelinePoint(i, admitted[i], 0, 0, 0, 0));
        assertThat(Timeline.maxWindowSum(points, 3)).isEqualTo(400); // 100+0+300, 300+50+0, or 0+0+400
        assertThat(Timeline.maxWindowSum(points, 2)).isEqualTo(400);
        assertThat(Timeline.maxWindowSum(points, 60)).isEqualTo(850);
        assertThat(Timeline.maxWindowSum(List.of(), 60)).isZero();
    }
}
