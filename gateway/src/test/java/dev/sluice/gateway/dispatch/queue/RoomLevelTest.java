package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.LaneShare.Demand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How far in counter order the free room reaches when every lane of the fleet takes its turns from it. */
class RoomLevelTest {
    static final long PAGE = 872;

    /** A lane at counter {@code head} with {@code pages} pages queued, at {@code priority}. */
    static Demand lane(String tenant, long head, int pages, int priority) {
        return new Demand(tenant, priority, pages * PAGE, 0, 0, head, pages);
    }

    static List<Demand> six(long head) {
        List<Demand> out = new ArrayList<>();
        for (int i = 1; i <= 6; i++) out.add(lane("t" + i, head, 100, 1));
        return out;
    }

    @Test
    void sixBooksAtACold200SlotProviderGoThirtyTwoPagesEachWithoutWaitingForOneAnother() {
        // The judged crowd's start: 600 pages, room for 194 calls (and 300,000 tokens): 32 each is 192.
        long level = RoomLevel.of(six(0), 300_000, 194);
        assertThat(level).isEqualTo(32 * PAGE - 1);
        // A lane that has sent 31 pages (counter 31 pages) sends its 32nd; one that has sent 32 waits.
        assertThat(31 * PAGE).isLessThanOrEqualTo(level);
        assertThat(32 * PAGE).isGreaterThan(level);
    }

    @Test
    void theTokensBindWhenTheyAreScarcerThanTheCalls() {
        // 60 pages' tokens for six lanes: ten each.
        assertThat(RoomLevel.of(six(0), 60 * PAGE, 1_000)).isEqualTo(10 * PAGE - 1);
    }

    @Test
    void aLaneBehindTakesTheRoomBeforeOnesAhead() {
        List<Demand> lanes = List.of(lane("behind", 0, 100, 1), lane("ahead", 10 * PAGE, 100, 1));
        // Ten calls: all ten for the lane ten pages behind; the level stops short of the other's counter.
        assertThat(RoomLevel.of(lanes, 1_000_000, 10)).isEqualTo(10 * PAGE - 1);
        // Twelve: then one each.
        assertThat(RoomLevel.of(lanes, 1_000_000, 12)).isEqualTo(11 * PAGE - 1);
    }

    @Test
    void aLaneAtALowerPriorityClimbsFasterAndSoGetsLess() {
        // Counter units are tokens × priority: the priority-2 lane's counter climbs two pages per page.
        List<Demand> lanes = List.of(lane("one", 0, 100, 1), lane("two", 0, 100, 2));
        long level = RoomLevel.of(lanes, 1_000_000, 30);
        assertThat(level).isEqualTo(20 * PAGE - 1); // 20 pages of "one", 10 of "two"
    }

    @Test
    void everythingThatFitsIsAllAndNoRoomIsNone() {
        assertThat(RoomLevel.of(six(0), 600 * PAGE, 600)).isEqualTo(RoomLevel.ALL);
        assertThat(RoomLevel.of(six(0), 0, 194)).isEqualTo(RoomLevel.NONE);
        assertThat(RoomLevel.of(six(0), 300_000, 0)).isEqualTo(RoomLevel.NONE);
        assertThat(RoomLevel.of(six(0), 5 * PAGE, 194))
                .as("not even one page for each lane at the lowest counter")
                .isEqualTo(RoomLevel.NONE);
        assertThat(RoomLevel.of(List.of(), 300_000, 194)).isEqualTo(RoomLevel.NONE);
    }

    @Test
    void aTenantHereAndElsewhereIsOneLaneItsPartsSummedFromItsLowestHead() {
        List<Demand> here = List.of(lane("a", 0, 10, 1));
        List<Demand> elsewhere = List.of(lane("a", 5 * PAGE, 10, 1), lane("b", 0, 100, 1));
        // a: 20 pages from 0, b: 100 from 0; 30 calls: 15 each.
        assertThat(RoomLevel.of(here, elsewhere, 1_000_000, 30)).isEqualTo(15 * PAGE - 1);
    }

    @Test
    void whatElsewhereSaysIsKnownOnlyWithQueuedDemandAndItsHeads() {
        assertThat(RoomLevel.knows(List.of())).isFalse();
        assertThat(RoomLevel.knows(List.of(new Demand("a", 1, 0, PAGE, 1, 0, 0))))
                .as("refused there, nothing queued")
                .isFalse();
        assertThat(RoomLevel.knows(List.of(lane("a", 0, 1, 1)))).isTrue();
        assertThat(RoomLevel.knows(List.of(lane("a", 0, 1, 1), new Demand("b", 1, PAGE, 0, 0))))
                .as("a replica of an earlier version: where b stands is not said")
                .isFalse();
    }

    @Test
    void edgeValuesSaturate() {
        long top = LaneShare.MAX_COUNTER;
        List<Demand> huge = List.of(
                new Demand("a", 3, Long.MAX_VALUE / 2, 0, 0, top, Integer.MAX_VALUE),
                new Demand("b", 3, Long.MAX_VALUE / 2, 0, 0, -top, 1),
                lane("c", Long.MAX_VALUE - 10, 100, 3));
        long level = RoomLevel.of(huge, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(level).isBetween(-top, Long.MAX_VALUE);
        assertThat(RoomLevel.of(huge, 1, 1)).isEqualTo(RoomLevel.NONE);
        assertThat(RoomLevel.of(List.of(new Demand("a", 1, PAGE, 0, 0, Demand.UNKNOWN_HEAD, 1)), 300_000, 194))
                .as("a lane whose head is not said is not placed")
                .isEqualTo(RoomLevel.NONE);
    }
}
