package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.LaneShare.Report;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fair queue's side of sharing across replicas: what it reports, how it takes the fleet's counters, the hold. */
class FairQueueSharingTest {
    static final long NEVER = Long.MAX_VALUE;
    static final BudgetView ROOMY = FairQueueTest.ROOMY;

    final FairQueue queue = new FairQueue(1_000, 0.1);
    int ids;

    Job job(String tenant, long tokens) {
        return Job.of("j" + ++ids, tenant, 1, JobClass.INTERACTIVE, tokens, 0, NEVER);
    }

    @Test
    void reportsEachLanesServiceSinceTheLastReportAndWhetherItWaits() {
        queue.shareWithOtherReplicas();
        queue.enqueue(job("a", 800));
        queue.enqueue(job("a", 800));
        queue.enqueue(job("b", 500));
        queue.next(ROOMY);
        queue.next(ROOMY);
        assertThat(queue.takeReports())
                .containsExactlyInAnyOrder(new Report("a", 800, true), new Report("b", 500, false));
        queue.reconcile("a", -100);
        assertThat(queue.takeReports()).containsExactly(new Report("a", -100, true));
    }

    @Test
    void aJobPutBackUndoesItsServiceInTheReport() {
        queue.shareWithOtherReplicas();
        queue.enqueue(job("a", 800));
        Job sent = queue.next(ROOMY).orElseThrow();
        queue.requeueAtHead(sent.nextAttempt());
        assertThat(queue.takeReports()).containsExactly(new Report("a", 0, true));
    }

    @Test
    void aReportThatNeverArrivedIsSentAgainWithTheNext() {
        queue.shareWithOtherReplicas();
        queue.enqueue(job("a", 800));
        queue.enqueue(job("a", 800));
        queue.next(ROOMY);
        List<Report> lost = queue.takeReports();
        queue.next(ROOMY);
        queue.restore(lost);
        assertThat(queue.takeReports()).containsExactly(new Report("a", 1_600, false));
    }

    @Test
    void lanesAreOrderedByTheFleetsCountersPlusWhatTheyGotHereSince() {
        queue.enqueue(job("b", 800));
        queue.enqueue(job("b", 800));
        queue.enqueue(job("a", 800));
        queue.takeReports();
        // b's tenant was served a lot on another replica: a goes first although b's lane is the older here.
        queue.rebase(Map.of("a", 10_000L, "b", 50_000L));
        assertThat(queue.next(ROOMY).orElseThrow().tenant()).isEqualTo("a");
        assertThat(queue.next(ROOMY).orElseThrow().tenant()).isEqualTo("b");
    }

    @Test
    void lanesAboveTheHoldWaitAndTheRestGoInTheirOrder() {
        queue.enqueue(job("ahead", 800));
        queue.enqueue(job("behind", 800));
        queue.rebase(Map.of("ahead", 5_000L, "behind", 9_000L));
        queue.holdAbove(6_000);
        assertThat(queue.next(ROOMY).orElseThrow().tenant())
                .as("ahead at 5 000 may go")
                .isEqualTo("ahead");
        assertThat(queue.next(ROOMY)).as("behind at 9 000 is held").isEmpty();
        assertThat(queue.peek()).isEmpty();
        assertThat(queue.depth()).isOne();
        queue.holdAbove(Long.MAX_VALUE);
        assertThat(queue.next(ROOMY).orElseThrow().tenant()).isEqualTo("behind");
    }

    @Test
    void whileAnotherReplicasPromiseHasComeLanesPromisedLaterWaitAndDueOnesGo() {
        // The door told "a" at once and "b" 5 s; another replica's promise came at 1 s.
        queue.enqueue(Job.of("b1", "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER), Long.MIN_VALUE, 5_000);
        queue.enqueue(Job.of("a1", "a", 1, JobClass.INTERACTIVE, 800, 0, NEVER), Long.MIN_VALUE, Long.MIN_VALUE);
        queue.holdNotDueAfter(1_000, 2_000);
        assertThat(queue.next(ROOMY)).map(Job::id).contains("a1");
        assertThat(queue.next(ROOMY)).as("b's promised start has not come").isEmpty();
        assertThat(queue.peekUnheld()).map(Job::id).contains("b1");
        assertThat(queue.nextPromisedStart(2_000)).isEqualTo(5_000);
        queue.holdNotDueAfter(1_000, 5_000);
        assertThat(queue.next(ROOMY))
                .as("its own promise has come")
                .map(Job::id)
                .contains("b1");
    }

    @Test
    void aJobPastItsPromisedStartLessTheMarginGoesBeforeALowerLanePromisedLaterButNotBeforeOneDue() {
        // "high" was served a page: its lane is ahead. Its next page, told "at once" with a minute's wait, is past
        // its promised start less the door's margin (1.5 s) at 58.6 s.
        queue.enqueue(Job.of("h0", "high", 1, JobClass.INTERACTIVE, 800, 0, 60_000));
        queue.next(ROOMY);
        queue.enqueue(Job.of("h1", "high", 1, JobClass.INTERACTIVE, 800, 0, 60_000));
        queue.enqueue(Job.of("l1", "low", 1, JobClass.INTERACTIVE, 100, 0, 120_000), Long.MIN_VALUE, 59_000);
        queue.enqueue(Job.of("d1", "due", 1, JobClass.INTERACTIVE, 100, 0, 120_000), Long.MIN_VALUE, 58_000);
        queue.advanceTo(58_600);
        assertThat(queue.next(ROOMY))
                .as("lower, and due: by counter")
                .map(Job::id)
                .contains("d1");
        assertThat(queue.next(ROOMY)).as("low was told 59 s").map(Job::id).contains("h1");
        assertThat(queue.next(ROOMY)).map(Job::id).contains("l1");
    }

    @Test
    void anotherReplicasPromiseNotYetComeHoldsNothing() {
        queue.enqueue(Job.of("b1", "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER), Long.MIN_VALUE, 5_000);
        queue.holdNotDueAfter(3_000, 2_000);
        assertThat(queue.next(ROOMY)).map(Job::id).contains("b1");
    }

    @Test
    void aJobPutBackAtTheHeadIsDueAtOnce() {
        queue.enqueue(Job.of("b1", "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER), Long.MIN_VALUE, 5_000);
        Job sent = queue.next(ROOMY).orElseThrow();
        queue.requeueAtHead(sent.nextAttempt());
        queue.holdNotDueAfter(1_000, 2_000);
        assertThat(queue.next(ROOMY)).map(Job::id).contains("b1");
    }

    @Test
    void itTellsTheOtherReplicasWhenEachTenantsNextPromiseComesInTheClassServed() {
        queue.enqueue(Job.of("b1", "b", 1, JobClass.INTERACTIVE, 100, 0, NEVER), Long.MIN_VALUE, 5_000);
        queue.enqueue(Job.of("c1", "c", 1, JobClass.BATCH, 100, 0, NEVER), Long.MIN_VALUE, 1_000);
        assertThat(queue.tenants().servedClass()).isEqualTo(JobClass.INTERACTIVE);
        assertThat(queue.tenants().nextPromisedStart("b", JobClass.INTERACTIVE)).isEqualTo(5_000);
        assertThat(queue.tenants().nextPromisedStart("c", JobClass.INTERACTIVE))
                .as("batch waits behind interactive work here")
                .isEqualTo(Long.MAX_VALUE);
        assertThat(queue.tenants().nextPromisedStart("nobody", JobClass.BATCH)).isEqualTo(Long.MAX_VALUE);
        assertThat(new ExpectedDemand(queue.tenants()).here(2_000))
                .extracting(LaneShare.Demand::tenant, LaneShare.Demand::dueInMs)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("b", 3_000L),
                        org.assertj.core.groups.Tuple.tuple("c", LaneShare.Demand.NOT_DUE));
        assertThat(new ExpectedDemand(queue.tenants()).here(Long.MIN_VALUE))
                .as("saturates")
                .extracting(LaneShare.Demand::dueInMs)
                .contains(LaneShare.Demand.NOT_DUE - 1);
    }

    @Test
    void aBatchLaneBehindInteractiveWorkHereIsNotReportedWaiting() {
        // It goes only after the interactive work here: were it reported waiting, the others would hold back for it
        // while this replica held its interactive lanes for theirs (seed 74 of the random worlds: three replicas sent
        // nothing for minutes, 101 jobs waiting up to 569 s, the provider idle).
        queue.shareWithOtherReplicas();
        queue.enqueue(Job.of("backfill-1", "backfill", 1, JobClass.BATCH, 800, 0, NEVER));
        queue.enqueue(job("person", 800));
        assertThat(queue.takeReports())
                .containsExactlyInAnyOrder(new Report("backfill", 0, false), new Report("person", 0, true));
        queue.next(ROOMY); // the person's call: now batch is what this replica serves
        assertThat(queue.takeReports())
                .containsExactlyInAnyOrder(new Report("backfill", 0, true), new Report("person", 800, false));
    }

    @Test
    void aDroppedLanesServiceIsStillReported() {
        FairQueue q = new FairQueue(1_000, 0.1, 0); // no credit: a drained lane goes as soon as it is not ahead
        q.shareWithOtherReplicas();
        q.enqueue(job("a", 800));
        q.enqueue(job("b", 800));
        q.enqueue(job("b", 800));
        q.next(ROOMY); // a: 800, drained but ahead of b
        q.next(ROOMY); // b: 800, a is no longer ahead: dropped
        assertThat(q.takeReports()).containsExactlyInAnyOrder(new Report("a", 800, false), new Report("b", 800, true));
    }

    @Test
    void aloneItKeepsNothingForReports() {
        FairQueue q = new FairQueue(1_000, 0.1, 0);
        q.enqueue(job("a", 800));
        q.enqueue(job("b", 800));
        q.enqueue(job("b", 800));
        q.next(ROOMY);
        q.next(ROOMY);
        q.expire(Door.LONGEST_BURST_MS); // past the burst: a, drained and no longer ahead, is dropped
        q.restore(List.of(new Report("gone", 5, false)));
        assertThat(q.takeReports()).extracting(Report::tenant).containsExactly("b");
    }
}
