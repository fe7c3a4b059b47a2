package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HoldBackTest {
    static final long SLACK = 2_400;
    static final long TTL = 1_000;

    @Test
    void noOtherReplicaWaitingHoldsNothingBack() {
        HoldBack h = HoldBack.of(OptionalLong.empty(), 1_000, SLACK, TTL);
        assertThat(h).isSameAs(HoldBack.NONE);
        assertThat(h.aboveAt(1_000)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aLaneMayGoUpToTheSlackAheadOfTheLowestCounterWaitingElsewhere() {
        HoldBack h = HoldBack.of(OptionalLong.of(10_000), 1_000, SLACK, TTL);
        assertThat(h.aboveAt(1_000)).isEqualTo(12_400);
        assertThat(h.aboveAt(1_999)).as("until the view is a TTL old").isEqualTo(12_400);
    }

    @Test
    void aViewNotRefreshedWithinTheTtlHoldsNothingBack() {
        // The store stopped answering, or this replica's ticks stopped: never hold back for ever.
        HoldBack h = HoldBack.of(OptionalLong.of(10_000), 1_000, SLACK, TTL);
        assertThat(h.aboveAt(2_000)).isEqualTo(Long.MAX_VALUE);
        assertThat(h.aboveAt(-5_000)).as("a clock that jumped back").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theThresholdSaturates() {
        assertThat(HoldBack.of(OptionalLong.of(Long.MAX_VALUE - 10), 0, SLACK, TTL)
                        .aboveAt(0))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(HoldBack.of(OptionalLong.of(-LaneShare.MAX_COUNTER), 0, SLACK, TTL)
                        .aboveAt(0))
                .isEqualTo(-LaneShare.MAX_COUNTER + SLACK);
    }

    @Test
    void otherReplicasDueWorkHoldsWhileTheViewIsFreshAndOnlyOnceItIsDue() {
        HoldBack h = HoldBack.of(OptionalLong.of(10_000), 1_000, SLACK, TTL).withOthersDueAt(1_500);
        assertThat(h.dueAt(1_200)).isEqualTo(1_500);
        assertThat(h.holdsAt(1_200)).as("by counter").isTrue();
        HoldBack dueOnly = new HoldBack(Long.MAX_VALUE, 1_000, SLACK, TTL, 1_500);
        assertThat(dueOnly.holdsAt(1_499)).isFalse();
        assertThat(dueOnly.holdsAt(1_500)).isTrue();
        assertThat(dueOnly.dueAt(2_000)).as("a TTL old").isEqualTo(Long.MAX_VALUE);
        assertThat(dueOnly.holdsAt(2_000)).isFalse();
        assertThat(HoldBack.NONE.withOthersDueAt(0)).isSameAs(HoldBack.NONE);
        assertThat(HoldBack.NONE.dueAt(0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void dueWorkCountsUpToTheSlackPastTheLowestLaneAnywhereSaturating() {
        HoldBack h = HoldBack.of(OptionalLong.of(10_000), 1_000, SLACK, TTL);
        assertThat(h.dueReach(OptionalLong.empty())).isEqualTo(12_400);
        assertThat(h.dueReach(OptionalLong.of(4_000))).isEqualTo(6_400);
        assertThat(h.dueReach(OptionalLong.of(20_000))).isEqualTo(12_400);
        assertThat(HoldBack.of(OptionalLong.of(Long.MAX_VALUE - 10), 0, SLACK, TTL)
                        .dueReach(OptionalLong.empty()))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theSoonestDueWorkWithinReachIsWhenLanesHereWait() {
        List<LaneShare.Demand> demand = List.of(
                new LaneShare.Demand("near", 1, 800, 0, 0, 5_000, 1, 300),
                new LaneShare.Demand("far", 1, 800, 0, 0, 50_000, 1, -900),
                new LaneShare.Demand("idle", 1, 0, 800, 1, 1_000, 0));
        assertThat(LaneShare.dueAt(demand, 12_400, 1_000)).isEqualTo(1_300);
        assertThat(LaneShare.dueAt(demand, Long.MAX_VALUE, 1_000))
                .as("a lane far on in counter order waits where it is, by counter")
                .isEqualTo(100);
        assertThat(LaneShare.dueAt(demand, 1_000, 1_000)).isEqualTo(Long.MAX_VALUE);
        assertThat(LaneShare.dueAt(
                        List.of(new LaneShare.Demand("t", 1, 800, 0, 0, 0, 1, Long.MAX_VALUE - 1)),
                        0,
                        Long.MAX_VALUE - 5))
                .as("saturates")
                .isEqualTo(Long.MAX_VALUE - 1);
        assertThat(LaneShare.dueAt(
                        List.of(new LaneShare.Demand("t", 1, 800, 0, 0, 0, 1, Long.MIN_VALUE)), 0, Long.MIN_VALUE + 5))
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void theSlackIsTwoPercentOfTheBudgetsMinute() {
        assertThat(HoldBack.slackFor(300_000)).isEqualTo(6_000);
        assertThat(HoldBack.slackFor(120_000)).isEqualTo(2_400);
        assertThat(HoldBack.slackFor(0)).isEqualTo(1);
    }

    @Test
    void refusesANegativeSlackOrTtl() {
        assertThatThrownBy(() -> new HoldBack(0, 0, -1, TTL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HoldBack(0, 0, SLACK, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
