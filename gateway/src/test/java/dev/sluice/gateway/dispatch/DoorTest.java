package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import dev.sluice.gateway.dispatch.Door.Capacity;
import dev.sluice.gateway.dispatch.DoorDecision.Verdict;
import org.junit.jupiter.api.Test;

/** Seed 000's provider: 300,000 tokens and 1,500 requests a minute, 200 in flight, calls of 2 s, pages of 800 tokens. */
class DoorTest {
    static final long PAGE = 800;
    static final long MINUTE = 60_000;
    /** The provider saturated: the window full of pages, every slot taken. */
    static final Capacity SATURATED = new Capacity(300_000, 1_500, 200, 2_000, 300_000, 375, 200, 0);
    static final Capacity FRESH = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 0);

    static WorkAhead pages(int n) {
        return new WorkAhead(n, n * PAGE);
    }

    @Test
    void nPagesAheadOfASaturatedProviderWaitAboutNTimes800Over300000Minutes() {
        for (int n : new int[] {10, 100, 250}) {
            long wait = Door.estimateWaitMs(PAGE, pages(n), SATURATED);
            assertThat(wait).as("%d pages ahead", n).isCloseTo(n * PAGE * MINUTE / 300_000, withPercentage(10));
            assertThat(wait).isEqualTo((n + 1) * PAGE * MINUTE / 300_000); // exactly: its own page too
        }
    }

    @Test
    void aFullMinuteAheadSaysBusyWithAPositionAndWhenToComeBack() {
        DoorDecision d = Door.decide(PAGE, pages(375), SATURATED, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(d.position()).isEqualTo(376);
        assertThat(d.estimatedWaitMs()).isEqualTo(60_160);
        assertThat(d.retryAfterMs()).isEqualTo(160);
        DoorDecision justInside = Door.decide(PAGE, pages(374), SATURATED, MINUTE);
        assertThat(justInside.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(justInside.estimatedWaitMs()).isEqualTo(MINUTE);
    }

    @Test
    void aShorterMaxWaitSaysBusySooner() {
        DoorDecision d = Door.decide(PAGE, pages(100), SATURATED, 5_000);
        assertThat(d.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(d.estimatedWaitMs()).isEqualTo(16_160);
        assertThat(d.retryAfterMs()).isEqualTo(11_160);
    }

    @Test
    void aFreshProviderTakesABookAtOnce() {
        DoorDecision d = Door.decide(PAGE, pages(99), FRESH, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.estimatedWaitMs()).isZero();
        assertThat(d.position()).isEqualTo(100);
    }

    @Test
    void slotsDrainByLittlesLaw() {
        // a fresh window, but 400 calls to send and 200 slots of 2 s: 100 calls a second
        long wait = Door.estimateWaitMs(10, new WorkAhead(399, 3_990), FRESH);
        assertThat(wait).isEqualTo((399 + 1 - 200) * 2_000 / 200); // the 200 beyond the slots, at 100/s
        // the provider slowed to 20 s a call: the same queue now waits ten times as long
        Capacity slow = new Capacity(300_000, 1_500, 200, 20_000, 0, 0, 0, 0);
        assertThat(Door.estimateWaitMs(10, new WorkAhead(399, 3_990), slow)).isEqualTo(10 * wait);
    }

    @Test
    void smallCallsAreBoundByRequestsPerMinute() {
        Capacity requestsFull = new Capacity(300_000, 1_500, 200, 2_000, 15_000, 1_500, 0, 0);
        // 3,000 one-line calls ahead: tokens are no constraint, requests are: two minutes
        assertThat(Door.estimateWaitMs(5, new WorkAhead(3_000, 15_000), requestsFull)).isEqualTo(120_040);
    }

    @Test
    void aPauseIsWaitedOutFirst() {
        Capacity paused = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 30_000);
        assertThat(Door.estimateWaitMs(PAGE, pages(10), paused)).isEqualTo(30_000);
    }

    @Test
    void aCallLargerThanTheBudgetIsTooLargeNotBusy() {
        DoorDecision d = Door.decide(300_001, WorkAhead.NONE, FRESH, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.TOO_LARGE);
        assertThat(d.retryAfterMs()).isEqualTo(-1);
    }

    @Test
    void batchIsEstimatedAgainstWhatBatchMayUse() {
        Capacity batch = SATURATED.forBatch(0.1);
        assertThat(batch.tokensPerMinute()).isEqualTo(270_000);
        assertThat(batch.requestsPerMinute()).isEqualTo(1_350);
        assertThat(batch.inFlightLimit()).isEqualTo(180);
        FairQueue queue = new FairQueue(1_000, 0.1);
        Door door = new Door(queue);
        Capacity atBatchLimit = new Capacity(300_000, 1_500, 200, 2_000, 270_000, 337, 180, 0);
        DoorDecision interactive = door.admit(Job.of("i", "t", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), atBatchLimit, MINUTE);
        DoorDecision backfill = door.admit(Job.of("b", "t", 1, JobClass.BATCH, PAGE, 0, Long.MAX_VALUE), atBatchLimit, MINUTE);
        assertThat(interactive.estimatedWaitMs()).as("a person fits the reserve").isZero();
        assertThat(backfill.estimatedWaitMs()).isEqualTo(Door.estimateWaitMs(PAGE, WorkAhead.NONE, atBatchLimit.forBatch(0.1)))
                .isPositive();
    }

    @Test
    void theDoorReadsTheWorkAheadFromTheQueue() {
        FairQueue queue = new FairQueue(10_000, 0.1);
        for (int i = 0; i < 1_000; i++) queue.enqueue(Job.of("a" + i, "ten-books", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        Door door = new Door(queue);
        // behind the ten books in a single line it would wait minutes; beside them it waits one page
        DoorDecision d = door.admit(Job.of("b0", "one-book", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.position()).isEqualTo(2);
        assertThat(d.estimatedWaitMs()).isEqualTo(2 * PAGE * MINUTE / 300_000);
        DoorDecision theirs = door.admit(Job.of("a-next", "ten-books", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(theirs.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(theirs.position()).isEqualTo(1_001);
    }

    @Test
    void aFullQueueSaysSoEvenWhenTheWaitWouldBeShort() {
        FairQueue queue = new FairQueue(2, 0);
        queue.enqueue(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        queue.enqueue(Job.of("y", "b", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        DoorDecision d = new Door(queue).admit(Job.of("z", "c", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), FRESH, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.QUEUE_FULL);
        assertThat(d.retryAfterMs()).isPositive();
    }
}
