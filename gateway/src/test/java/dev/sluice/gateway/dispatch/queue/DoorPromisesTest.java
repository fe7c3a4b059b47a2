package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.Door.Capacity;
import dev.sluice.gateway.dispatch.queue.DoorDecision.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The door keeps its word: a newcomer owed an earlier turn never pushes a firm promise past its
 * deadline (it goes behind it), a promise only just made gives way to it instead, and a tenant
 * back first is not promised the share of those who asked in the last span and will be back.
 * The provider saturated and freeing evenly: page {@code k} in line starts {@code (k + 1) × 160 ms} from now.
 */
class DoorPromisesTest {
    static final long PAGE = 800;
    static final Capacity SATURATED = DoorTest.SATURATED;

    final FairQueue queue = FairQueue.forBudget(10_000, 0.1, 300_000);
    final Door door = new Door(queue);

    private void tenantAQueuesTenPagesDueIn(long maxWaitMs) {
        for (int i = 0; i < 10; i++) {
            Job job = Job.of("a" + i, "a", 1, JobClass.INTERACTIVE, PAGE, 0, maxWaitMs);
            DoorDecision d = door.admit(job, SATURATED, maxWaitMs, 0);
            assertThat(d.accepted()).isTrue();
            queue.enqueue(job, d.turnAtLeast());
        }
    }

    @Test
    void aNewcomerOwedAnEarlierTurnGoesBehindTheLastFirmPromiseItWouldBreak() {
        tenantAQueuesTenPagesDueIn(2_700);
        // At 600 ms, page k of A starts at (k + 1) × 160 ms; the longest promise within the 2,100 ms left is
        // 1,047 ms (its margin kept): pages 0–5 are in time, and B's page first would make page 5 (960 → 1,120 ms)
        // late.
        Job b = Job.of("b0", "b", 1, JobClass.INTERACTIVE, PAGE, 600, 600 + 60_000);
        assertThat(queue.aheadOf(b).jobs())
                .as("b's fair turn: right after A's head (level counters, the older lane first)")
                .isEqualTo(1);

        DoorDecision d = door.admit(b, SATURATED, 60_000, 600);

        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.displaced()).isEmpty();
        assertThat(d.position()).as("behind A's page 5").isEqualTo(7);
        assertThat(d.estimatedWaitMs()).isEqualTo(7 * 160);
        queue.enqueue(b, d.turnAtLeast());
        List<Job> order = queue.inServiceOrder();
        assertThat(order.indexOf(b)).isEqualTo(6);
        assertThat(order.subList(0, 6)).extracting(Job::id).containsExactly("a0", "a1", "a2", "a3", "a4", "a5");
        // Served in that order: the deferred job waits its place, then A's later pages.
        List<String> served = new ArrayList<>();
        BudgetView roomy = FairQueueTest.ROOMY;
        for (int i = 0; i < 8; i++) served.add(queue.next(roomy).orElseThrow().id());
        assertThat(served).containsExactly("a0", "a1", "a2", "a3", "a4", "a5", "b0", "a6");
    }

    @Test
    void aPromiseStaysSoftForATwentiethOfItsWaitBetweenHalfASecondAndTwo() {
        assertThat(Door.softForMs(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, 60_000)))
                .isEqualTo(2_000);
        assertThat(Door.softForMs(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, 20_000)))
                .isEqualTo(1_000);
        assertThat(Door.softForMs(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, 2_000)))
                .isEqualTo(Door.BURST_MS);
        assertThat(Door.softForMs(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, 0)))
                .isEqualTo(Door.BURST_MS);
        assertThat(Door.softForMs(Job.of("x", "a", 1, JobClass.INTERACTIVE, PAGE, 0, Long.MAX_VALUE)))
                .isEqualTo(Door.LONGEST_BURST_MS);
    }

    /**
     * A cold gateway's edge passes a burst's calls in arrival order over up to two seconds: a
     * promise of a minute made to the first tenant's book still gives way to a tenant whose
     * pages reach the door 1.5 s later, and is firm at 2 s.
     */
    @Test
    void aPromiseOfAMinuteGivesWayForTwoSecondsToABurstThatReachesTheDoorLate() {
        int admitted = 0;
        for (int i = 0; ; i++) {
            Job job = Job.of("a" + i, "a", 1, JobClass.INTERACTIVE, PAGE, 0, 60_000);
            DoorDecision d = door.admit(job, SATURATED, 60_000, 0);
            if (!d.accepted()) break;
            queue.enqueue(job, d.turnAtLeast());
            admitted++;
        }
        assertThat(admitted).as("a minute's promises at 160 ms a page").isGreaterThan(300);

        Job soft = Job.of("b0", "b", 1, JobClass.INTERACTIVE, PAGE, 1_500, 1_500 + 60_000);
        DoorDecision d = door.admit(soft, SATURATED, 60_000, 1_500);
        assertThat(d.accepted()).isTrue();
        assertThat(d.displaced())
                .as("the one page of A it would make late gives way")
                .hasSize(1);

        Job firm = Job.of("b1", "b", 1, JobClass.INTERACTIVE, PAGE, 2_000, 2_000 + 60_000);
        DoorDecision later = door.admit(firm, SATURATED, 60_000, 2_000);
        assertThat(later.displaced()).as("two seconds on, the promise is firm").isEmpty();
    }

    @Test
    void aPromiseMadeWithinTheBurstGivesWayAndIsAnsweredAtOnce() {
        tenantAQueuesTenPagesDueIn(2_700);
        // At 100 ms A's pages are all still within the burst: B takes its fair turn, and the page it makes late leaves.
        Job b = Job.of("b0", "b", 1, JobClass.INTERACTIVE, PAGE, 100, 100 + 60_000);

        DoorDecision d = door.admit(b, SATURATED, 60_000, 100);

        assertThat(d.verdict()).isEqualTo(Verdict.ACCEPT);
        assertThat(d.position()).isEqualTo(2);
        assertThat(d.turnAtLeast()).isEqualTo(Long.MIN_VALUE);
        // The longest promise within 2,700 - 100 ms is 1,523 ms: page 8 (1,440 ms) would start at 1,600.
        assertThat(d.displaced()).extracting(gone -> gone.job().id()).containsExactly("a8");
        // And it is told the wait it would have had behind B: 1,600 ms from now.
        assertThat(d.displaced()).extracting(DoorDecision.Displaced::waitMs).containsExactly(1_600L);
    }

    @Test
    void whoIsBackFirstIsPromisedOnlyItsShareOfWhatTheOthersWillAskForAgain() {
        // Six tenants each had a book of 100 pages refused in the last minute: they will be back for it.
        for (int t = 0; t < 6; t++) for (int p = 0; p < 100; p++) door.asked(job("t" + t, t + "-" + p, 0), 0);
        int admitted = 0;
        for (int p = 0; p < 100; p++) {
            Job j = job("t0", "again-" + p, 5_000);
            DoorDecision d = door.admit(j, SATURATED, 60_000, 5_000);
            door.asked(j, 5_000);
            if (d.accepted()) {
                queue.enqueue(j, d.turnAtLeast());
                admitted++;
            }
        }
        // About 375 pages start within the minute; six tenants share them: about 62 each.
        assertThat(admitted).isBetween(55, 70);

        FairQueue alone = FairQueue.forBudget(10_000, 0.1, 300_000);
        Door fresh = new Door(alone);
        int admittedAlone = 0;
        for (int p = 0; p < 100; p++) {
            Job j = job("t0", "alone-" + p, 5_000);
            DoorDecision d = fresh.admit(j, SATURATED, 60_000, 5_000);
            if (d.accepted()) {
                alone.enqueue(j, d.turnAtLeast());
                admittedAlone++;
            }
        }
        assertThat(admittedAlone).as("no one else asked: the whole book").isEqualTo(100);
    }

    @Test
    void whatOtherReplicasHaveQueuedAndWereAskedCountsAsIfItWereHere() {
        // Five tenants on another replica: each has 40 pages queued there and asked for 100 in the span.
        Map<String, LaneShare.Demand> there = new HashMap<>();
        for (int t = 1; t < 6; t++)
            there.put(
                    "t" + t,
                    new LaneShare.Demand("t" + t, 1, 40 * PAGE, 100 * PAGE, 100, LaneShare.Demand.UNKNOWN_HEAD, 40));
        door.elsewhere(there);
        int admitted = 0;
        for (int p = 0; p < 100; p++) {
            Job j = job("t0", "here-" + p, 5_000);
            DoorDecision d = door.admit(j, SATURATED, 60_000, 5_000);
            door.asked(j, 5_000);
            if (d.accepted()) {
                queue.enqueue(j, d.turnAtLeast());
                admitted++;
            }
        }
        assertThat(admitted)
                .as("its sixth of the minute, as if all six asked here")
                .isBetween(55, 70);
        // Told with where its demand starts in counter order (its lane's start, before what it has queued), in how
        // many calls it is queued, and when its next promise comes (queued with no later word: now).
        assertThat(door.demandHere(5_000))
                .containsExactly(new LaneShare.Demand(
                        "t0",
                        1,
                        admitted * PAGE,
                        100 * PAGE,
                        100,
                        queue.tenants().headTagOf("t0"),
                        admitted,
                        0));
    }

    /**
     * Another replica holds its lanes back only once they are the hold's slack past this one's
     * ({@link HoldBack}), so what it has queued within that slack past a job's turn may be served
     * first: the door counts it ahead. Counted to the turn alone, two doors promised the room at a
     * minute's turn to their own lines, and the last pages of one were dropped there.
     */
    @Test
    void whatAnotherReplicaQueuedWithinTheHoldsSlackPastTheTurnCountsAhead() {
        Job j = job("t0", "here", 5_000);
        long turn = queue.tenants().tagOf(j);
        // x has 10 pages queued on another replica from t0's turn on: in counter order, none before it.
        Map<String, LaneShare.Demand> there = Map.of("x", new LaneShare.Demand("x", 1, 10 * PAGE, 0, 0, turn, 10));
        door.elsewhere(there, 0);
        long strict = door.admit(j, SATURATED, 60_000, 5_000).estimatedWaitMs();
        assertThat(strict).as("first in line").isEqualTo(160);

        door.elsewhere(there, 4 * PAGE);
        assertThat(door.admit(j, SATURATED, 60_000, 5_000).estimatedWaitMs())
                .as("behind the 4 pages within the slack")
                .isEqualTo(5 * 160);
    }

    @Test
    void aFirmPromiseTheNewcomerCannotGetBehindInTimeMeansBusy() {
        tenantAQueuesTenPagesDueIn(2_700);
        // B will wait 1 s at most; behind A's page 5 it would start at 1,120 ms.
        Job b = Job.of("b0", "b", 1, JobClass.INTERACTIVE, PAGE, 600, 600 + 1_000);
        DoorDecision d = door.admit(b, SATURATED, 1_000, 600);
        assertThat(d.verdict()).isEqualTo(Verdict.BUSY);
        assertThat(d.retryAfterMs()).isPositive();
    }

    private static Job job(String tenant, String id, long now) {
        return Job.of(id, tenant, 1, JobClass.INTERACTIVE, PAGE, now, now + 60_000);
    }
}
