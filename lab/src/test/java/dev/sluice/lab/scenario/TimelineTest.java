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
        assertThat(t.points()).containsExactly(
                new TimelinePoint(0, 1_605, 0, 0),
                new TimelinePoint(1, 0, 0, 0),
                new TimelinePoint(2, 0, 1, 1));
    }

    @Test
    void theFullestWindowIsTheLargestSumOfConsecutiveSeconds() {
        List<TimelinePoint> points = new ArrayList<>();
        long[] admitted = {100, 0, 300, 50, 0, 0, 400};
        for (int i = 0; i < admitted.length; i++) points.add(new TimelinePoint(i, admitted[i], 0, 0));
        assertThat(Timeline.maxWindowSum(points, 3)).isEqualTo(400); // 100+0+300, 300+50+0, or 0+0+400
        assertThat(Timeline.maxWindowSum(points, 2)).isEqualTo(400);
        assertThat(Timeline.maxWindowSum(points, 60)).isEqualTo(850);
        assertThat(Timeline.maxWindowSum(List.of(), 60)).isZero();
    }
}
