package dev.sluice.lab.provider;

import static dev.sluice.lab.provider.Admissions.admitted;
import static dev.sluice.lab.provider.Admissions.rejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.lab.provider.Admission.Admitted;
import dev.sluice.lab.provider.Admission.Reason;
import dev.sluice.lab.provider.Admission.Rejected;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The simulator's core under a fake clock: {@code now} is just a number the test moves. */
class ProviderSimulatorTest {

    private static final LabLimits NO_JITTER = LabLimits.DEFAULTS.withLatencyJitter(0);

    @Test
    void tokenWindowIsRollingNotAlignedToMinuteBoundaries() {
        var sim = new ProviderSimulator(NO_JITTER);
        // The whole minute's tokens at second 59: 299,800 prompt + 200 max tokens.
        admitted(sim.admit(299_800, 200, 59_000));

        // A fixed per-minute counter would have reset at second 60; a rolling window still holds them.
        Rejected at61 = rejected(sim.admit(100, 100, 61_000));
        assertThat(at61.reason()).isEqualTo(Reason.TOKENS_PER_MINUTE);
        assertThat(at61.status()).isEqualTo(429);
        assertThat(at61.retryAfterMillis()).isEqualTo(119_000 - 61_000);

        assertThat(sim.admit(100, 100, 118_999)).isInstanceOf(Rejected.class);
        assertThat(sim.admit(100, 100, 119_000)).isInstanceOf(Admitted.class);
    }

    @Test
    void retryAfterIsWhenTheOldestAdmissionsLeaveSoThisCallFits() {
        var sim = new ProviderSimulator(NO_JITTER);
        admitted(sim.admit(99_800, 200, 0)); // 100k at 0 s
        admitted(sim.admit(99_800, 200, 10_000)); // 100k at 10 s
        admitted(sim.admit(99_800, 200, 20_000)); // 100k at 20 s: window full

        // 150k needs the first two to leave: the second one leaves at 70 s.
        Rejected r = rejected(sim.admit(149_800, 200, 30_000));
        assertThat(r.retryAfterMillis()).isEqualTo(40_000);
        assertThat(r.limit()).isEqualTo(300_000);
        assertThat(r.used()).isEqualTo(300_000);
        assertThat(r.requested()).isEqualTo(150_000);

        // Taking the advice works, one millisecond earlier does not.
        assertThat(sim.admit(149_800, 200, 69_999)).isInstanceOf(Rejected.class);
        assertThat(sim.admit(149_800, 200, 70_000)).isInstanceOf(Admitted.class);
    }

    @Test
    void requestWindowRefusesTheNextRequestUntilTheOldestLeaves() {
        var sim = new ProviderSimulator(NO_JITTER.withRequestsPerMinute(3));
        for (long t = 0; t < 3; t++) {
            sim.complete(admitted(sim.admit(10, 10, t * 1000)), t * 1000 + 1);
        }
        Rejected r = rejected(sim.admit(10, 10, 5_000));
        assertThat(r.reason()).isEqualTo(Reason.REQUESTS_PER_MINUTE);
        assertThat(r.retryAfterMillis()).isEqualTo(55_000);
        assertThat(r.rateLimits().remainingRequests()).isZero();
        assertThat(sim.admit(10, 10, 60_000)).isInstanceOf(Admitted.class);
    }

    @Test
    void whenBothWindowsAreFullTheRetryTimeSatisfiesBoth() {
        var sim = new ProviderSimulator(NO_JITTER.withRequestsPerMinute(2).withTokensPerMinute(1_000));
        admitted(sim.admit(400, 100, 0)); // 500 tokens, 1 request
        admitted(sim.admit(400, 100, 20_000)); // 1000 tokens, 2 requests
        // Requests fit at 60 s (first leaves); 900 tokens need both gone: 80 s.
        Rejected r = rejected(sim.admit(800, 100, 30_000));
        assertThat(r.reason()).isEqualTo(Reason.TOKENS_PER_MINUTE);
        assertThat(r.retryAfterMillis()).isEqualTo(50_000);
    }

    @Test
    void overloadedWith503AtTheInFlightCapAndRejectedCallsLeaveNoTrace() {
        var sim = new ProviderSimulator(NO_JITTER.withMaxInFlight(2));
        LabCall first = admitted(sim.admit(600, 200, 0));
        admitted(sim.admit(600, 200, 500));

        Rejected r = rejected(sim.admit(600, 200, 1_000));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.reason()).isEqualTo(Reason.OVERLOADED);
        // The first call is expected to finish at 2 s.
        assertThat(r.retryAfterMillis()).isEqualTo(1_000);
        LabStats s = sim.stats(1_000);
        assertThat(s.requestsInWindow()).isEqualTo(2);
        assertThat(s.tokensInWindow()).isEqualTo(1_600);
        assertThat(s.rejected503()).isEqualTo(1);
        assertThat(s.currentInFlight()).isEqualTo(2);

        sim.complete(first, 2_000);
        assertThat(sim.admit(600, 200, 2_000)).isInstanceOf(Admitted.class);
        assertThat(sim.stats(2_000).maxInFlightSeen()).isEqualTo(2);
    }

    @Test
    void tokensCountedAtAdmissionArePromptPlusRequestedMaxOrTheModelsDefault() {
        var sim = new ProviderSimulator(NO_JITTER);
        LabCall capped = admitted(sim.admit(600, 50, 0));
        assertThat(capped.reservedTokens()).isEqualTo(650);
        assertThat(capped.completionTokens()).isEqualTo(50);
        assertThat(capped.truncated()).isTrue();

        LabCall roomy = admitted(sim.admit(600, 4_000, 0));
        assertThat(roomy.reservedTokens()).isEqualTo(4_600);
        assertThat(roomy.completionTokens()).isEqualTo(200);
        assertThat(roomy.truncated()).isFalse();

        LabCall uncapped = admitted(sim.admit(600, ProviderSimulator.NO_MAX_TOKENS, 0));
        assertThat(uncapped.reservedTokens()).isEqualTo(800);
        assertThat(uncapped.completionTokens()).isEqualTo(200);

        LabCall embedding = admitted(sim.admit(30, 0, 0));
        assertThat(embedding.reservedTokens()).isEqualTo(30);
        assertThat(embedding.completionTokens()).isZero();

        assertThat(sim.stats(0).tokensInWindow()).isEqualTo(650 + 4_600 + 800 + 30);
    }

    @Test
    void aRequestLargerThanTheTokenLimitIsRefusedWithoutARetryTime() {
        var sim = new ProviderSimulator(NO_JITTER.withTokensPerMinute(1_000));
        Rejected r = rejected(sim.admit(900, 200, 0));
        assertThat(r.reason()).isEqualTo(Reason.REQUEST_TOO_LARGE);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.retryAfterMillis()).isEqualTo(-1);
        assertThat(sim.stats(0).rejected429Tokens()).isEqualTo(1);
    }

    @Test
    void onlyFinishedCallsAreBilledInFullAtThePrice() {
        var sim = new ProviderSimulator(NO_JITTER);
        LabCall call = admitted(sim.admit(600, 200, 0));
        assertThat(sim.stats(1_000).tokensBilled()).isZero();

        assertThat(sim.complete(call, 2_000)).isTrue();
        LabStats s = sim.stats(2_000);
        assertThat(s.tokensBilled()).isEqualTo(800);
        assertThat(s.costUsd()).isCloseTo(800 * 3.0 / 1e6, within(1e-12));
        assertThat(s.completed()).isEqualTo(1);
        assertThat(s.currentInFlight()).isZero();

        // Rejections cost nothing.
        var tight = new ProviderSimulator(NO_JITTER.withMaxInFlight(1));
        admitted(tight.admit(600, 200, 0));
        rejected(tight.admit(600, 200, 0));
        assertThat(tight.stats(0).tokensBilled()).isZero();
    }

    @Test
    void aCancelledCallIsBilledItsPromptAndTheTokensAlreadySentAndReleasedOnce() {
        var sim = new ProviderSimulator(NO_JITTER);
        LabCall call = admitted(sim.admit(600, 200, 0));

        assertThat(sim.cancel(call, 37, 900)).isTrue();
        // A late completion signal for the same call must neither release nor bill again.
        assertThat(sim.complete(call, 2_000)).isFalse();
        assertThat(sim.cancel(call, 37, 2_000)).isFalse();

        LabStats s = sim.stats(2_000);
        assertThat(s.tokensBilled()).isEqualTo(637);
        assertThat(s.cancelled()).isEqualTo(1);
        assertThat(s.completed()).isZero();
        assertThat(s.currentInFlight()).isZero();
        // Tokens counted at admission stay in the window: the provider spent them.
        assertThat(s.tokensInWindow()).isEqualTo(800);
    }

    @Test
    void countersAddUp() {
        var sim = new ProviderSimulator(NO_JITTER.withMaxInFlight(3).withRequestsPerMinute(4));
        List<LabCall> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Admission a = sim.admit(100, 100, i);
            if (a instanceof Admitted ok) {
                calls.add(ok.call());
            }
        }
        calls.forEach(c -> sim.complete(c, 10));
        for (int i = 0; i < 3; i++) {
            sim.admit(100, 100, 20);
        }
        sim.noteBadRequest();
        sim.noteMissingKey();

        LabStats s = sim.stats(20);
        assertThat(s.received()).isEqualTo(9);
        assertThat(s.admitted()).isEqualTo(4);
        assertThat(s.rejected503()).isEqualTo(2);
        assertThat(s.rejected429()).isEqualTo(2);
        assertThat(s.rejected429Requests()).isEqualTo(2);
        assertThat(s.badRequests()).isEqualTo(1);
        assertThat(s.received()).isEqualTo(s.admitted() + s.rejected429() + s.rejected503() + s.badRequests());
        assertThat(s.completed()).isEqualTo(3);
        assertThat(s.currentInFlight()).isEqualTo(1);
        assertThat(s.maxInFlightSeen()).isEqualTo(3);
        assertThat(s.maxRequestsInWindow()).isEqualTo(4);
        assertThat(s.maxTokensInWindow()).isEqualTo(800);
        assertThat(s.callsWithoutKey()).isEqualTo(1);
        assertThat(s.limits().maxInFlight()).isEqualTo(3);
    }

    @Test
    void maxTokensInWindowIsTheLargestRollingSumNotTheTotal() {
        var sim = new ProviderSimulator(NO_JITTER);
        sim.complete(admitted(sim.admit(900, 100, 0)), 1);
        sim.complete(admitted(sim.admit(900, 100, 30_000)), 30_001);
        sim.complete(admitted(sim.admit(900, 100, 70_000)), 70_001); // the first has left
        LabStats s = sim.stats(70_000);
        assertThat(s.maxTokensInWindow()).isEqualTo(2_000);
        assertThat(s.tokensBilled()).isEqualTo(3_000);
    }

    @Test
    void resetClearsCountersAndWindowsButRunningCallsKeepTheirSlot() {
        var sim = new ProviderSimulator(NO_JITTER.withMaxInFlight(1));
        LabCall running = admitted(sim.admit(299_800, 200, 0));
        rejected(sim.admit(10, 10, 0));

        sim.reset();
        LabStats s = sim.stats(1);
        assertThat(s.received()).isZero();
        assertThat(s.rejected503()).isZero();
        assertThat(s.tokensInWindow()).isZero();
        assertThat(s.maxTokensInWindow()).isZero();
        assertThat(s.currentInFlight()).isEqualTo(1);

        // Still occupying the provider, so still overloaded; its later completion is not billed anew.
        assertThat(rejected(sim.admit(10, 10, 2)).reason()).isEqualTo(Reason.OVERLOADED);
        sim.complete(running, 2_000);
        s = sim.stats(2_000);
        assertThat(s.tokensBilled()).isZero();
        assertThat(s.completed()).isZero();
        assertThat(s.currentInFlight()).isZero();
        // The window was cleared too: a full minute's tokens fit right away.
        assertThat(sim.admit(299_800, 200, 2_000)).isInstanceOf(Admitted.class);
    }

    @Test
    void memoryStaysBoundedUnderAnEndlessFlood() {
        var sim = new ProviderSimulator(NO_JITTER);
        // Ten minutes of 100 calls per second, four times the RPM limit.
        for (long t = 0; t < 600_000; t += 10) {
            if (sim.admit(10, 10, t) instanceof Admitted ok) {
                sim.complete(ok.call(), t);
            }
            assertThat(sim.windowEntries()).isLessThanOrEqualTo(1_500);
        }
        assertThat(sim.stats(600_000).admitted()).isEqualTo(1_500 * 10);
        // Once a quiet window has passed, nothing is held.
        sim.stats(700_000);
        assertThat(sim.windowEntries()).isZero();
    }

    @Test
    void latencyJitterStaysWithinBoundsAndVaries() {
        var sim = new ProviderSimulator(
                LabLimits.DEFAULTS
                        .withMaxInFlight(10_000)
                        .withRequestsPerMinute(10_000)
                        .withTokensPerMinute(10_000_000),
                new SplittableRandom(42));
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 1_000; i++) {
            long latency = admitted(sim.admit(1, 1, 0)).latencyMillis();
            min = Math.min(min, latency);
            max = Math.max(max, latency);
        }
        assertThat(min).isGreaterThanOrEqualTo(1_800);
        assertThat(max).isLessThanOrEqualTo(2_200);
        assertThat(max - min).isGreaterThan(300);
    }

    @Test
    void lowerLimitsApplyToTheNextAdmission() {
        var sim = new ProviderSimulator(NO_JITTER);
        for (int i = 0; i < 5; i++) {
            admitted(sim.admit(10, 10, 0));
        }
        sim.setLimits(sim.limits().withRequestsPerMinute(3).withWindow(Duration.ofSeconds(10)));
        Rejected r = rejected(sim.admit(10, 10, 1_000));
        // Three have to leave for a fourth slot... all five were admitted at 0, so at 10 s.
        assertThat(r.retryAfterMillis()).isEqualTo(9_000);
        assertThat(sim.admit(10, 10, 10_000)).isInstanceOf(Admitted.class);
    }

    @Test
    void rateLimitNumbersForTheHeaders() {
        var sim = new ProviderSimulator(NO_JITTER);
        sim.admit(600, 200, 0);
        sim.admit(600, 200, 1_000);
        RateLimitSnapshot r = sim.rateLimits(1_012);
        assertThat(r.remainingRequests()).isEqualTo(1_498);
        assertThat(r.remainingTokens()).isEqualTo(298_400);
        assertThat(r.resetTokensMillis()).isEqualTo(59_988);
        assertThat(r.headers())
                .containsEntry("x-ratelimit-limit-requests", "1500")
                .containsEntry("x-ratelimit-limit-tokens", "300000")
                .containsEntry("x-ratelimit-remaining-requests", "1498")
                .containsEntry("x-ratelimit-remaining-tokens", "298400")
                .containsEntry("x-ratelimit-reset-requests", "59.988s")
                .containsEntry("x-ratelimit-reset-tokens", "59.988s");
        assertThat(sim.rateLimits(61_000).headers()).containsEntry("x-ratelimit-reset-tokens", "0s");
    }

    @Test
    void concurrentCallersNeverOverrunTheCapsOrLoseACall() throws Exception {
        var sim = new ProviderSimulator(NO_JITTER.withMaxInFlight(50).withRequestsPerMinute(400));
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger overCap = new AtomicInteger();
        ConcurrentLinkedQueue<LabCall> held = new ConcurrentLinkedQueue<>();
        for (int th = 0; th < threads; th++) {
            pool.submit(() -> {
                start.await();
                for (int i = 0; i < 200; i++) {
                    if (sim.admit(10, 10, 0) instanceof Admitted ok) {
                        held.add(ok.call());
                        if (sim.stats(0).currentInFlight() > 50) {
                            overCap.incrementAndGet();
                        }
                        LabCall c = held.poll();
                        if (c != null) {
                            sim.complete(c, 0);
                        }
                    }
                }
                return null;
            });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        held.forEach(c -> sim.complete(c, 0));

        LabStats s = sim.stats(0);
        assertThat(overCap).hasValue(0);
        assertThat(s.admitted()).isEqualTo(400);
        assertThat(s.received()).isEqualTo(1_600);
        assertThat(s.completed()).isEqualTo(400);
        assertThat(s.currentInFlight()).isZero();
        assertThat(s.maxRequestsInWindow()).isEqualTo(400);
    }

    @Test
    void theListenerIsToldTheSameSaturatedReservationTheWindowsJudged() {
        var sim = new ProviderSimulator(NO_JITTER);
        AtomicLong told = new AtomicLong();
        sim.listener((now, admission, tokens) -> told.set(tokens));
        Rejected r = rejected(sim.admit(Long.MAX_VALUE - 10, 100, 0));
        assertThat(r.reason()).isEqualTo(Reason.REQUEST_TOO_LARGE);
        assertThat(told.get()).isEqualTo(Long.MAX_VALUE).isEqualTo(r.requested());
    }
}
