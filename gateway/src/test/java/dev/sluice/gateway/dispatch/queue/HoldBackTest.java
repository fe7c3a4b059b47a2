package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
