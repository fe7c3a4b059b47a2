package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import dev.sluice.lab.provider.Admission;
import dev.sluice.lab.provider.LabCall;
import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.LabStats;
import dev.sluice.lab.provider.ProviderSimulator;
import dev.sluice.lab.provider.RateLimitSnapshot;
import dev.sluice.lab.scenario.LabReport.CaseResult;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Books, waste, waits and the first failure, from events with times passed in. */
class CaseRecorderTest {
    static final RateLimitSnapshot LIMITS = new RateLimitSnapshot(1500, 1500, 0, 300_000, 300_000, 0);

    static LabStats provider(long rejected429, long rejected503, double cost) {
        return new LabStats(
                0,
                0,
                0,
                0,
                rejected429,
                rejected429,
                0,
                rejected503,
                0,
                0,
                0,
                cost,
                0,
                0,
                0,
                0,
                0,
                0,
                LabLimits.DEFAULTS);
    }

    @Test
    void aBookIsCleanOnlyWhenEveryPageCameBackAndTheBrokenOnesAreWaste() {
        CaseRecorder rec = new CaseRecorder(1_000, 3.0);
        rec.usersNow(2, 1_000);
        CaseRecorder.Book clean = rec.startBook(0, 2);
        CaseRecorder.Book broken = rec.startBook(1, 2);
        CaseRecorder.Book cut = rec.startBook(1, 2); // the run ended with a page unanswered
        for (int i = 0; i < 5; i++) rec.pageSent();
        rec.pageDone(clean, true, 1_000, 3_000, 800);
        rec.pageDone(clean, true, 1_000, 3_100, 800);
        rec.pageDone(broken, true, 1_000, 3_000, 1_000_000);
        rec.pageDone(broken, false, 1_000, 1_010, PageSender.FAILED);
        rec.pageDone(cut, true, 1_000, 2_000, 1_000_000);

        CaseResult r = rec.caseResult(CaseId.CASE2, provider(1, 0, 6.0048));
        assertThat(r.booksTotal()).isEqualTo(3);
        assertThat(r.booksClean()).isEqualTo(1);
        assertThat(r.pagesSent()).isEqualTo(5);
        assertThat(r.wastedUsd())
                .isEqualTo(6.0); // 2 M tokens in broken books at $3 per M; the clean book's are not waste
        assertThat(r.billUsd()).isEqualTo(6.0048);
        assertThat(r.pagesDied()).isEqualTo(1);
        assertThat(r.waitP50Ms())
                .isEqualTo(2_000); // waits 2000, 2100, 2000, 10, 1000: sorted 10, 1000, 2000, 2000, 2100
        // HdrHistogram's 3 significant digits: 2100 is in a 2 ms sub-bucket and reads as its top, 2101.
        assertThat(r.waitP95Ms()).isCloseTo(2_100, withinPercentage(0.1));
        assertThat(r.durationSeconds()).isEqualTo(2.1);
        assertThat(r.users()).isEqualTo(2);
        assertThat(r.firstFailure()).isNull();
        assertThat(r.tokensPerMinuteLimit()).isEqualTo(300_000);
        assertThat(r.inFlightLimit()).isEqualTo(LabLimits.DEFAULTS.maxInFlight());
    }

    @Test
    void theFirstFailureIsTheEarliestWhoeverReportsItAndCarriesTheUsersThen() {
        CaseRecorder rec = new CaseRecorder(0, 3.0);
        rec.usersNow(3, 0);
        rec.decided(100, new Admission.Admitted(null, LIMITS), 800);
        rec.refused(2_500, FailureLimit.LIMITER);
        rec.usersNow(5, 3_000);
        rec.decided(
                700,
                new Admission.Rejected(Admission.Reason.TOKENS_PER_MINUTE, 1_000, 300_000, 299_500, 800, LIMITS),
                800);
        rec.refused(800, FailureLimit.GATEWAY_BUSY);

        assertThat(rec.firstFailure()).isEqualTo(new LabReport.Failure(0.7, 5, "tokens"));
        assertThat(rec.firstFailureMs()).isEqualTo(700);
        CaseResult r = rec.caseResult(CaseId.CASE4, provider(0, 0, 0));
        assertThat(r.busyAnswers()).isEqualTo(1);
        assertThat(r.limiterRefusals()).isEqualTo(1);
        assertThat(r.timeline().get(0)).isEqualTo(new LabReport.TimelinePoint(0, 800, 800, 1, 1, 1));
        assertThat(rec.rampResult(CaseId.CASE4, LabLimits.DEFAULTS).steps())
                .containsExactly(new LabReport.Step(0, 3), new LabReport.Step(3, 5));
    }

    @Test
    void theTimelineCountsWhatTheProviderCountsAndOnlyTheCallsAdmittedSinceTheStart() {
        LabLimits limits = LabLimits.DEFAULTS.withMaxInFlight(2);
        ProviderSimulator provider = new ProviderSimulator(limits, new SplittableRandom(1));
        LabCall before = ((Admission.Admitted) provider.admit(100, 50, 500)).call(); // a warm-up's call, still running
        CaseRecorder rec = new CaseRecorder(1_000, 3.0, limits.windowMillis());
        provider.listener(rec);
        LabCall first = ((Admission.Admitted) provider.admit(1_000, 200, 1_000)).call();
        assertThat(provider.admit(1_000, 200, 1_100)).isInstanceOf(Admission.Rejected.class); // 503: two in flight
        provider.complete(before, 1_200); // not ours: the timeline never counted it in
        provider.complete(first, 2_500);
        provider.complete(first, 2_600); // released once, whatever the caller does twice
        rec.refused(3_000, FailureLimit.LIMITER);

        CaseResult r = rec.caseResult(CaseId.CASE2, provider.stats(3_000));
        assertThat(r.timeline())
                .containsExactly(
                        new LabReport.TimelinePoint(0, 1_200, 1_200, 1, 1, 0),
                        new LabReport.TimelinePoint(1, 0, 1_200, 1, 0, 0),
                        new LabReport.TimelinePoint(2, 0, 1_200, 0, 0, 1));
        assertThat(r.inFlightLimit()).isEqualTo(2);
    }

    static CaseResult withWaits(long... waitsMs) {
        CaseRecorder rec = new CaseRecorder(0, 3.0);
        CaseRecorder.Book book = rec.startBook(0, waitsMs.length);
        for (long w : waitsMs) rec.pageDone(book, true, 0, w, 1);
        return rec.caseResult(CaseId.CASE2, provider(0, 0, 0));
    }

    @Test
    void percentilesAreNearestRank() {
        assertThat(withWaits().waitP50Ms()).isZero();
        assertThat(withWaits(7).waitP95Ms()).isEqualTo(7);
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) hundred[i] = 100 - i; // in any order
        assertThat(withWaits(hundred).waitP50Ms()).isEqualTo(50);
        assertThat(withWaits(hundred).waitP95Ms()).isEqualTo(95);
    }
}
