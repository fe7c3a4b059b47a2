package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.queue.Door.Capacity;
import dev.sluice.gateway.dispatch.queue.DoorDecision.Verdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Seed 000's provider: 300,000 tokens and 1,500 requests a minute, 200 in flight, calls of 2 s, pages of 800 tokens. */
class DoorTest {
    static final long PAGE = 800;
    static final long MINUTE = 60_000;
    /** The provider saturated: the window full of pages, every slot taken. */
    static final Capacity SATURATED = new Capacity(300_000, 1_500, 200, 2_000, 300_000, 375, 200, 0, null, 0);

    static final Capacity FRESH = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 0, null, 0);

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
        // Back when the wait is one the door promises within a minute, its margin kept: 58,500 ms.
        assertThat(d.retryAfterMs()).isEqualTo(60_160 - 58_500);
        DoorDecision justInside = Door.decide(PAGE, pages(364), SATURATED, MINUTE);
        assertThat(justInside.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(justInside.estimatedWaitMs()).isEqualTo(58_400);
        assertThat(Door.decide(PAGE, pages(365), SATURATED, MINUTE).verdict())
                .as("58,560 ms")
                .isEqualTo(Verdict.BUSY);
    }

    @Test
    void aShorterMaxWaitSaysBusySooner() {
        DoorDecision d = Door.decide(PAGE, pages(100), SATURATED, 5_000);
        assertThat(d.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(d.estimatedWaitMs()).isEqualTo(16_160);
        assertThat(d.retryAfterMs()).isEqualTo(16_160 - Door.longestPromisedMs(5_000));
    }

    @Test
    void thePromiseKeepsAMarginThatGrowsWithTheEstimateAndNoneForRoomNow() {
        // A second and a twentieth of the estimate, at most half a second more (the estimate itself below a
        // second): the largest e whose e + margin(e) fits the wait.
        assertThat(Door.longestPromisedMs(MINUTE)).isEqualTo(58_500); // 58,500 + 1,000 + 500 = 60,000
        assertThat(Door.longestPromisedMs(20_000)).isEqualTo(18_500); // 18,500 + 1,000 + 500
        assertThat(Door.longestPromisedMs(10_000)).isEqualTo(8_572); // 8,572 + 1,000 + 428
        assertThat(Door.longestPromisedMs(5_000)).isEqualTo(3_810); // 3,810 + 1,000 + 190
        assertThat(Door.longestPromisedMs(1_000)).isEqualTo(488); // 488 + 488 + 24
        assertThat(Door.longestPromisedMs(1)).isZero();
        assertThat(Door.longestPromisedMs(0)).isZero();
        assertThat(Door.longestPromisedMs(-5)).isZero();
        long huge = Door.longestPromisedMs(Long.MAX_VALUE);
        assertThat(huge).isPositive();
        assertThat(huge + Door.marginMs(huge)).isPositive();
        // Room now is a fact: a max wait of 0 still gets in when nothing is ahead.
        assertThat(Door.decide(PAGE, WorkAhead.NONE, FRESH, 0).verdict()).isEqualTo(Verdict.ACCEPT);
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
        Capacity slow = new Capacity(300_000, 1_500, 200, 20_000, 0, 0, 0, 0, null, 0);
        assertThat(Door.estimateWaitMs(10, new WorkAhead(399, 3_990), slow)).isEqualTo(10 * wait);
    }

    @Test
    void aBurstsCallsFreeTheirSlotsTogetherACallLater() {
        // The judged crowd's first turn: 200 calls sent 100 ms ago hold every slot and end together in 1.9 s (the
        // windows have room: only the slots decide).
        Capacity burst = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 200, 0, null, 0)
                .withEnding(Collections.nCopies(200, 1_900L));
        assertThat(Door.estimateWaitMs(PAGE, WorkAhead.NONE, burst)).isEqualTo(1_900);
        assertThat(Door.estimateWaitMs(PAGE, pages(149), burst))
                .as("the 150th: Little's law alone said 1.5 s, started at 1.9 s (simulated one-replica crowd)")
                .isEqualTo(1_900);
        // The 201st takes a slot freed by one of the calls sent at 1.9 s, a call after that.
        assertThat(Door.estimateWaitMs(PAGE, pages(200), burst)).isEqualTo(1_900 + 2_000);
        // Unknown ends: Little's law, as before.
        Capacity unknown = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 200, 0, null, 0);
        assertThat(Door.estimateWaitMs(PAGE, pages(149), unknown)).isEqualTo(1_500);
    }

    @Test
    void theSlotsScheduleNeverPromisesSoonerThanLittlesLaw() {
        // Every call past the mean (long answers among short ones): ending "now" by the schedule, but a call past
        // the mean may have long to go. The average still holds: 100 calls a second.
        Capacity overdue = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 200, 0, null, 0)
                .withEnding(Collections.nCopies(200, 0L));
        assertThat(Door.estimateWaitMs(PAGE, pages(149), overdue)).isEqualTo(1_500);
    }

    @Test
    void millionsInFlightDrainEvenlyWithoutASchedule() {
        int inFlight = SendTime.MOST_SCHEDULED_SLOTS + 1;
        Capacity huge = new Capacity(
                        Long.MAX_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, 2_000, 0, 0, inFlight, 0, null, 0)
                .withEnding(Collections.nCopies(10, 1_900L));
        assertThat(SendTime.slots(huge)).isNull();
        assertThat(Door.estimateWaitMs(PAGE, pages(1_000), huge)).isZero();
    }

    @Test
    void callsThisReplicaDoesNotKnowEndEvenlyOverAMeanCall() {
        // 200 in flight, 100 of them this replica's, ending in 1.9 s; the other 100 end every 20 ms.
        Capacity shared = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 200, 0, null, 0)
                .withEnding(Collections.nCopies(100, 1_900L));
        assertThat(Door.estimateWaitMs(PAGE, WorkAhead.NONE, shared)).isEqualTo(20);
        assertThat(Door.estimateWaitMs(PAGE, pages(49), shared)).isEqualTo(1_000);
        assertThat(Door.estimateWaitMs(PAGE, pages(99), shared))
                .as("the others' 100th at 2 s comes after this replica's 100 at 1.9 s")
                .isEqualTo(1_900);
        assertThat(Door.estimateWaitMs(PAGE, pages(199), shared)).isEqualTo(2_000);
    }

    @Test
    void smallCallsAreBoundByRequestsPerMinute() {
        Capacity requestsFull = new Capacity(300_000, 1_500, 200, 2_000, 15_000, 1_500, 0, 0, null, 0);
        // 3,000 one-line calls ahead: tokens are no constraint, requests are: two minutes
        assertThat(Door.estimateWaitMs(5, new WorkAhead(3_000, 15_000), requestsFull))
                .isEqualTo(120_040);
    }

    @Test
    void aPauseIsWaitedOutFirst() {
        Capacity paused = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 30_000, null, 0);
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
        Capacity atBatchLimit = new Capacity(300_000, 1_500, 200, 2_000, 270_000, 337, 180, 0, null, 0);
        DoorDecision interactive =
                door.admit(Job.of("i", "t", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), atBatchLimit, MINUTE);
        DoorDecision backfill =
                door.admit(Job.of("b", "t", 1, JobClass.BATCH, PAGE, 0, Long.MAX_VALUE), atBatchLimit, MINUTE);
        assertThat(interactive.estimatedWaitMs())
                .as("a person fits the reserve")
                .isZero();
        assertThat(backfill.estimatedWaitMs())
                .isEqualTo(Door.estimateWaitMs(PAGE, WorkAhead.NONE, atBatchLimit.forBatch(0.1)))
                .isPositive();
    }

    @Test
    void theDoorReadsTheWorkAheadFromTheQueue() {
        FairQueue queue = new FairQueue(10_000, 0.1);
        for (int i = 0; i < 1_000; i++)
            queue.enqueue(Job.of("a" + i, "ten-books", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        Door door = new Door(queue);
        // behind the ten books in a single line it would wait minutes; beside them it waits one page
        DoorDecision d = door.admit(
                Job.of("b0", "one-book", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.position()).isEqualTo(2);
        assertThat(d.estimatedWaitMs()).isEqualTo(2 * PAGE * MINUTE / 300_000);
        DoorDecision theirs = door.admit(
                Job.of("a-next", "ten-books", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(theirs.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(theirs.position()).isEqualTo(1_001);
    }

    @Test
    void aFullQueueSaysSoEvenWhenTheWaitWouldBeShort() {
        FairQueue queue = new FairQueue(2, 0);
        queue.enqueue(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        queue.enqueue(Job.of("y", "b", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
        DoorDecision d = new Door(queue)
                .admit(Job.of("z", "c", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), FRESH, MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.QUEUE_FULL);
        assertThat(d.retryAfterMs()).isPositive();
    }

    /** The window full of pages charged in one burst, in the slot that leaves it {@code inMs} from now. */
    static Capacity burstLeavingIn(long inMs) {
        return new Capacity(
                300_000, 1_500, 200, 2_000, 300_000, 375, 0, 0, List.of(new Door.Freed(inMs, 300_000, 375)), 0);
    }

    /** The window full of pages charged evenly, 1/61 of them in each one-second slot, the oldest leaving in 1 s. */
    static Capacity evenlyFull() {
        List<Door.Freed> slots = new ArrayList<>();
        for (int i = 1; i <= 61; i++) slots.add(new Door.Freed(i * 1_000L, 300_000 / 61, 375 / 61));
        long tokens = slots.stream().mapToLong(Door.Freed::tokens).sum();
        long requests = slots.stream().mapToLong(Door.Freed::requests).sum();
        return new Capacity(300_000, 1_500, 200, 2_000, tokens, requests, 0, 0, slots, 0);
    }

    @Test
    void callsAMinuteAreTheFewestTheTokensRequestsAndSlotsAllow() {
        // 300,000 tokens, 1,500 requests, 200 slots of 2 s calls: 375 pages of 800 tokens, 1,500 requests, 6,000 calls
        assertThat(SATURATED.callsPerMinute(PAGE)).isEqualTo(375.0);
        assertThat(SATURATED.callsPerMinute(10))
                .as("small calls: the requests bind")
                .isEqualTo(1_500.0);
        Capacity fewSlots = new Capacity(300_000, 1_500, 7, 2_000, 0, 0, 0, 0, null, 0);
        assertThat(fewSlots.callsPerMinute(10))
                .as("seven slots of 2 s: Little's law")
                .isEqualTo(210.0);
    }

    @Test
    void aTenantBackSecondsAfterATurnsSendsIsPromisedTheNextTurn() {
        // A crowd's minute went out in one burst; a tenant whose pages of it were answered comes back 3 s later.
        // The room those sends free comes back 57 s from now, within its 60 s wait and the door's margin: it gets
        // its share of that turn, not a sliver of what frees before a larger margin's horizon and then a minute's
        // wait for its next ask while the tenants back a second later take the turn (finding 15).
        DoorDecision d = Door.decide(PAGE, WorkAhead.NONE, burstLeavingIn(57_000), MINUTE);
        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.estimatedWaitMs()).isEqualTo(57_000);
    }

    @Test
    void aWindowFilledByOneBurstFreesNothingUntilTheBurstLeavesIt() {
        // A crowd spent the minute in a few seconds: the next page waits for those to leave, ~a minute.
        DoorDecision d = Door.decide(PAGE, WorkAhead.NONE, burstLeavingIn(58_500), 30_000);
        assertThat(d.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(d.estimatedWaitMs()).isEqualTo(58_500);
        assertThat(d.retryAfterMs()).isEqualTo(58_500 - Door.longestPromisedMs(30_000));
        // the steady-state arithmetic would have said 160 ms and queued it, to wait out its deadline in line
        assertThat(Door.estimateWaitMs(PAGE, WorkAhead.NONE, SATURATED)).isEqualTo(160);
    }

    @Test
    void aWindowFilledEvenlyFreesAsFastAsItFilled() {
        Capacity even = evenlyFull();
        // one slot (4 918 tokens) leaves each second: six pages fit when the oldest slot leaves
        assertThat(Door.estimateWaitMs(PAGE, pages(5), even)).isEqualTo(1_000);
        assertThat(Door.estimateWaitMs(PAGE, pages(6), even)).isEqualTo(2_000);
        // N pages ahead still wait about N × 800 / 300 000 minutes, as in steady state
        assertThat(Door.estimateWaitMs(PAGE, pages(250), even))
                .isCloseTo(250 * PAGE * MINUTE / 300_000, withPercentage(5));
    }

    @Test
    void pastWhatTheWindowHoldsTheNextMinuteIsAWindowToo() {
        // a fresh window takes a minute's tokens now; the page after those waits until they leave
        Capacity fresh = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 0, List.of(), 0);
        assertThat(Door.estimateWaitMs(PAGE, pages(374), fresh))
                .isEqualTo((374 + 1 - 200) * 2_000 / 200); // the slots bind, not the tokens
        assertThat(Door.estimateWaitMs(PAGE, pages(375), fresh)).isEqualTo(Door.CYCLE_MS);
        // a burst leaving in 30 s, then a whole minute more sent as it leaves: the page after that, a cycle later
        assertThat(Door.estimateWaitMs(PAGE, pages(375), burstLeavingIn(30_000)))
                .isEqualTo(30_000 + Door.CYCLE_MS);
    }

    @Test
    void aSnapshotAgesAsItsWindowEmpties() {
        BudgetLimits limits = new BudgetLimits(1_500, 300_000, 200, 600_000);
        BudgetSnapshot full = BudgetSnapshot.empty(limits, 1_000_000)
                .withUsed(375, 300_000)
                .withResetMs(61_000)
                .withLeaving(List.of(
                        new BudgetSnapshot.Leaving(1_010_000, 100_000, 125),
                        new BudgetSnapshot.Leaving(1_061_000, 200_000, 250)));
        BudgetSnapshot later = full.agedBy(20_000);
        assertThat(later.usedTokens()).isEqualTo(200_000);
        assertThat(later.usedRequests()).isEqualTo(250);
        assertThat(later.leaving()).hasSize(1);
        assertThat(later.resetMs()).isEqualTo(41_000);
        assertThat(Capacity.of(later, 2_000).leaving()).containsExactly(new Door.Freed(41_000, 200_000, 250));
        assertThat(full.agedBy(0)).isSameAs(full);
    }

    @Test
    void theHeadOfTheLineCannotGoBeforeTheWindowHasRoomForIt() {
        Job page = Job.of("p", "t", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE);
        assertThat(Door.earliestSendMs(page, burstLeavingIn(58_500), 0.1)).isEqualTo(58_500);
        assertThat(Door.earliestSendMs(page, evenlyFull(), 0.1)).isEqualTo(1_000);
        Capacity fresh = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 200, 0, List.of(), 0);
        assertThat(Door.earliestSendMs(page, fresh, 0.1))
                .as("slots free as calls end: not a wait")
                .isZero();
        Capacity paused = new Capacity(300_000, 1_500, 200, 2_000, 0, 0, 0, 7_000, List.of(), 0);
        assertThat(Door.earliestSendMs(page, paused, 0.1)).isEqualTo(7_000);
        // batch must leave the interactive reserve free: 270 000 of 300 000 used is its limit already
        Capacity atBatchLimit = new Capacity(
                300_000, 1_500, 200, 2_000, 270_000, 337, 0, 0, List.of(new Door.Freed(30_000, 270_000, 337)), 0);
        assertThat(Door.earliestSendMs(Job.of("b", "t", 1, JobClass.BATCH, PAGE, 0, Long.MAX_VALUE), atBatchLimit, 0.1))
                .isEqualTo(30_000);
        assertThat(Door.earliestSendMs(page, atBatchLimit, 0.1)).isZero();
    }

    /** Five tenants with {@code pages} pages each in line, fed in turn as their crowds send them. */
    static FairQueue fiveFullLanes(int capacity, int pages) {
        FairQueue queue = new FairQueue(capacity, 0.1);
        for (int i = 0; i < pages; i++) {
            for (int t = 1; t <= 5; t++) {
                queue.enqueue(Job.of("t" + t + "-" + i, "t" + t, 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE));
            }
        }
        return queue;
    }

    @Test
    void aTenantWithNothingInLineIsPlacedByTheFairOrderNotBehindTheQueue() {
        FairQueue queue = fiveFullLanes(10_000, 300);
        Door door = new Door(queue);
        // 1 500 pages in line, 5 minutes of the provider: by its global place the newcomer would wait 4 minutes
        DoorDecision newcomer =
                door.admit(Job.of("n", "t6", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(newcomer.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(newcomer.position())
                .as("one round: each lane's head, then its page")
                .isEqualTo(6);
        assertThat(newcomer.estimatedWaitMs()).isEqualTo(6 * PAGE * MINUTE / 300_000);
        // the converse: a tenant with 300 in line waits for its own backlog, served at a sixth of the provider
        DoorDecision hog =
                door.admit(Job.of("h", "t1", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, MINUTE);
        assertThat(hog.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(hog.position()).isEqualTo(5 * 300 + 1);
        assertThat(hog.estimatedWaitMs()).isGreaterThan(4 * MINUTE);
    }

    @Test
    void aFullQueueStillTakesATenantWithNothingInLineAndRefusesTheOneHoldingMostOfIt() {
        FairQueue queue = fiveFullLanes(1_500, 300);
        assertThat(queue.isFull()).isTrue();
        Door door = new Door(queue);
        DoorDecision newcomer =
                door.admit(Job.of("n", "t6", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, 10 * MINUTE);
        assertThat(newcomer.verdict())
                .as("its place is taken from the longest lane's last page")
                .isEqualTo(Verdict.ACCEPT);
        assertThat(newcomer.position()).isEqualTo(6);
        DoorDecision hog =
                door.admit(Job.of("h", "t1", 2, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE), SATURATED, 10 * MINUTE);
        assertThat(hog.verdict()).isEqualTo(Verdict.QUEUE_FULL);
        assertThat(hog.position())
                .as("its place in service order, not the queue's length")
                .isEqualTo(5 * 300 + 1);
    }
}
