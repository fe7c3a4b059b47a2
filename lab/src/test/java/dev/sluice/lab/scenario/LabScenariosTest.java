package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.scenario.LabReport.CaseResult;
import dev.sluice.lab.scenario.LabReport.RampResult;
import dev.sluice.lab.scenario.LabReport.TimelinePoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Seed 000's findings, small and fast: the real runner, real HTTP, a real Sluice gateway for
 * case 4. Every count is the seed's divided by ten (books of 10 pages, 20 calls in flight,
 * 30 000 tokens and 150 requests a minute, a pool of 20), so every ratio between them holds
 * (a burst of three books is 1.5 × the in-flight cap, a minute holds 3.7 books) while the
 * machine sends a tenth of the requests; time runs ten times faster than the wall. Each
 * assertion is the shape the seed reports, not a number of this machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LabScenariosTest {
    LabReport solo;
    LabReport crowd;
    final List<String> progress = new ArrayList<>();

    @BeforeAll
    void run() {
        // Case 1 with ten-page books: its one book takes 20 seed seconds, 2 real ones.
        solo = new ScenarioRunner(
                        ScenarioSettings.defaults().with(with("--cases=case1", "--ramp=false", "--upload-for=1")), null)
                .run();
        crowd = new ScenarioRunner(
                        ScenarioSettings.defaults()
                                .with(with(
                                        "--cases=case2,case3,case4,case5",
                                        "--upload-for=8",
                                        "--ramp-users=1,2,3,5,8,12,20")),
                        (step, done, total) -> progress.add(step + " " + done + "/" + total))
                .run();
    }

    static final List<String> TENTH = List.of(
            "--time-factor=10",
            "--pages=10",
            "--in-flight=20",
            "--tpm=30000",
            "--rpm=150",
            "--pool=20",
            "--warm-up=200");

    static List<String> with(String... more) {
        List<String> all = new ArrayList<>(TENTH);
        all.addAll(List.of(more));
        return all;
    }

    CaseResult result(CaseId id) {
        return crowd.cases().stream()
                .filter(c -> c.id().equals(id.id()))
                .findFirst()
                .orElseThrow();
    }

    RampResult ramp(CaseId id) {
        return crowd.ramp().stream()
                .filter(r -> r.caseId().equals(id.id()))
                .findFirst()
                .orElseThrow();
    }

    static long providerErrors(List<TimelinePoint> timeline) {
        return timeline.stream().mapToLong(TimelinePoint::providerErrors).sum();
    }

    @Test
    void case1OnePageAfterAnotherIsSafeAndSlow() {
        CaseResult c = solo.cases().get(0);
        assertThat(c.pagesSent()).isEqualTo(10); // one book: 20 seed seconds, 2 real ones
        assertThat(c.pagesDied()).isZero();
        assertThat(c.booksClean()).isEqualTo(1).isEqualTo(c.booksTotal());
        assertThat(c.firstFailure()).isNull();
        // Each page waits for its own call and nothing else: about the provider's 2 s.
        assertThat(c.waitP50Ms()).isBetween(1_700L, 4_000L);
        assertThat(c.billUsd()).isPositive().isEqualTo(c.billUsd());
        assertThat(c.wastedUsd()).isZero();
    }

    @Test
    void case2AllPagesAtOnceBreaksTheProviderInTheFirstSecondsWithThreeUsers() {
        CaseResult c = result(CaseId.CASE2);
        assertThat(c.users()).isEqualTo(3);
        assertThat(c.firstFailure()).isNotNull();
        assertThat(c.firstFailure().second()).isLessThan(5);
        assertThat(c.firstFailure().limit()).isIn("in_flight", "tokens");
        assertThat(c.pagesDied()).isGreaterThanOrEqualTo(5);
        assertThat(c.booksClean()).isLessThan(c.booksTotal());
        assertThat(c.wastedUsd()).isPositive(); // paid for pages of broken books
        assertThat(providerErrors(c.timeline())).isEqualTo(c.pagesDied());
        // The chart's measure is the provider's own: it reaches the limit that refused, and never passes one.
        assertThat(Timeline.peakWindow(c.timeline())).isLessThanOrEqualTo(c.tokensPerMinuteLimit());
        assertThat(c.timeline()).allSatisfy(p -> assertThat(p.inFlight()).isLessThanOrEqualTo(c.inFlightLimit()));
        if (c.firstFailure().limit().equals("in_flight")) {
            assertThat(c.timeline()).anySatisfy(p -> assertThat(p.inFlight()).isEqualTo(c.inFlightLimit()));
        }
        // The ramp breaks with a few users too, at the provider.
        RampResult r = ramp(CaseId.CASE2);
        assertThat(r.firstFailure()).isNotNull();
        assertThat(r.firstFailure().limit()).isIn("in_flight", "tokens", "requests");
        assertThat(r.firstFailure().users()).isLessThanOrEqualTo(5);
    }

    @Test
    void case3TheLimiterRefusesUsersButTheProviderStaysClean() {
        CaseResult c = result(CaseId.CASE3);
        assertThat(c.limiterRefusals()).isGreaterThan(10); // 10-page books against 5-page buckets
        assertThat(c.firstFailure().limit()).isEqualTo("limiter");
        assertThat(c.pagesDied()).isZero();
        assertThat(providerErrors(c.timeline())).isZero();
        assertThat(c.booksClean()).isZero(); // a book of a hundred pages against a bucket of five comes out broken
        assertThat(c.waitP50Ms()).isLessThan(100); // refusals are instant
    }

    @Test
    void case4TheGatewaysQueueKeepsTheProviderCleanAndTheBooksWholeUntilTheDoorSaysBusy() {
        CaseResult c = result(CaseId.CASE4);
        assertThat(c.pagesDied()).isZero();
        assertThat(providerErrors(c.timeline())).isZero();
        assertThat(c.booksTotal()).isGreaterThanOrEqualTo(3);
        assertThat(c.booksClean()).isEqualTo(c.booksTotal());
        assertThat(c.wastedUsd()).isZero();
        assertThat(c.pagesSent()).isEqualTo(c.booksTotal() * 10);
        // 30 pages against 19 slots (20 × the gateway's 0.97 headroom): a third waited a call.
        assertThat(c.waitP95Ms()).isGreaterThan(c.waitP50Ms()).isGreaterThan(3_000);
        // The ramp: never an error at the provider; the failure that comes is the door's busy.
        RampResult r = ramp(CaseId.CASE4);
        assertThat(providerErrors(r.timeline())).isZero();
        assertThat(r.firstFailure()).isNotNull();
        assertThat(r.firstFailure().limit()).isEqualTo("gateway_busy");
        // The provider's minute is used (most of it), never overrun.
        assertThat(Timeline.maxWindowSum(r.timeline(), 60)).isBetween(20_000L, 30_000L);
        assertThat(Timeline.peakWindow(r.timeline())).isBetween(20_000L, r.tokensPerMinuteLimit());
        assertThat(r.tokensPerMinuteLimit()).isEqualTo(30_000);
        assertThat(r.timeline()).allSatisfy(p -> assertThat(p.inFlight()).isLessThanOrEqualTo(r.inFlightLimit()));
    }

    @Test
    void case5ThePoolIsAQueueNobodyDesigned() {
        CaseResult c = result(CaseId.CASE5);
        // 30 pages, 20 connections: a third waited for a connection, a whole call or more.
        assertThat(c.waitP95Ms()).isGreaterThan(3_000);
        assertThat(c.busyAnswers()).isZero();
        assertThat(c.limiterRefusals()).isZero();
        // Nothing but the pool in front: the ramp still breaks at the provider.
        RampResult r = ramp(CaseId.CASE5);
        assertThat(r.firstFailure()).isNotNull();
        assertThat(r.firstFailure().limit()).isIn("tokens", "requests", "in_flight", "timeout");
    }

    @Test
    void theReportSaysHowTimeWasScaledAndEveryStepWasTold() {
        assertThat(crowd.scale().timeFactor()).isEqualTo(10);
        assertThat(crowd.scale().note()).contains("10× faster", "200 ms", "seed units");
        assertThat(crowd.limits().tokensPerMinute()).isEqualTo(30_000);
        assertThat(crowd.ramp()).extracting(RampResult::caseId).containsExactly("case2", "case3", "case4", "case5");
        assertThat(progress)
                .containsExactly(
                        "case2 0/8",
                        "case3 1/8",
                        "case4 2/8",
                        "case5 3/8",
                        "case2-ramp 4/8",
                        "case3-ramp 5/8",
                        "case4-ramp 6/8",
                        "case5-ramp 7/8",
                        "null 8/8");
    }
}
