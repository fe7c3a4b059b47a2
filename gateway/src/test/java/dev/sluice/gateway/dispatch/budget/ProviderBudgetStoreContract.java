package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.SlidingWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What every {@link ProviderBudgetStore} must do, run against each implementation. Time is a
 * fake clock; t0 is aligned to a minute so slot arithmetic is easy to read. {@link #replica}
 * is a second store on the same shared state (for Redis, a second client: another replica).
 */
abstract class ProviderBudgetStoreContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final BudgetLimits LIMITS = new BudgetLimits(10, 1000, 3, 120_000);

    final FakeClock clock = new FakeClock(T0);
    ProviderBudgetStore store;
    String key;
    private int leases;

    abstract ProviderBudgetStore newStore(FakeClock clock);

    /** Another store over the same state: a second replica (in memory: the same instance). */
    abstract ProviderBudgetStore replica(ProviderBudgetStore store, FakeClock clock);

    @BeforeEach
    void setUp() {
        store = newStore(clock);
        key = "p" + UUID.randomUUID() + ":gpt-4o";
    }

    void at(long msFromT0) {
        clock.set(T0 + msFromT0);
    }

    String lease() {
        return "lease-" + ++leases;
    }

    BudgetDecision acquire(long tokens) {
        return acquire(LIMITS, tokens, lease());
    }

    BudgetDecision acquire(BudgetLimits limits, long tokens, String leaseId) {
        return store.tryAcquire(key, limits, Acquire.of(tokens, leaseId)).block(Duration.ofSeconds(5));
    }

    BudgetSnapshot snapshot() {
        return store.snapshot(key, LIMITS).block(Duration.ofSeconds(5));
    }

    boolean release(String leaseId) {
        return store.release(key, leaseId).block(Duration.ofSeconds(5));
    }

    @Test
    void anAdmissionTakesARequestItsTokensAndASlot() {
        BudgetDecision d = acquire(300);
        assertThat(d.admitted()).isTrue();
        assertThat(d.refusal()).isNull();
        assertThat(d.nowMs()).isEqualTo(T0);
        assertThat(d.snapshot().usedTokens()).isEqualTo(300);
        assertThat(d.snapshot().usedRequests()).isEqualTo(1);
        assertThat(d.snapshot().inFlight()).isEqualTo(1);
        assertThat(snapshot()).isEqualTo(d.snapshot());
    }

    @Test
    void theSnapshotSaysWhenWhatIsInTheWindowLeavesIt() {
        acquire(100);
        at(400);
        acquire(200);
        at(7_250);
        acquire(300);
        at(9_000);
        // a charge in slot [t, t + 1 s) leaves the window at t + 61 s
        assertThat(snapshot().leaving())
                .containsExactly(
                        new BudgetSnapshot.Leaving(T0 + 61_000, 300, 2),
                        new BudgetSnapshot.Leaving(T0 + 68_000, 300, 1));
        at(61_000);
        assertThat(snapshot().leaving()).containsExactly(new BudgetSnapshot.Leaving(T0 + 68_000, 300, 1));
        assertThat(acquire(new BudgetLimits(10, 1000, 10, 120_000), 10, lease())
                        .snapshot()
                        .leaving())
                .as("an admission's snapshot too")
                .containsExactly(
                        new BudgetSnapshot.Leaving(T0 + 68_000, 300, 1),
                        new BudgetSnapshot.Leaving(T0 + 122_000, 10, 1));
    }

    /**
     * The provider counts a call when it arrives, up to the count delay after the
     * admission, and frees it a minute after that. Stamped late, the charge leaves the window no
     * sooner, wherever in its second the admission fell; without the delay it left up to the
     * whole delay sooner (the 429s lab case 4 saw at the minute's turn).
     */
    @Test
    void aChargeStampedAtTheProvidersCountLeavesNoSoonerThanTheProviderFreesIt() {
        BudgetLimits delayed = new BudgetLimits(10, 1000, 10, 120_000, 0, 0, 250);
        for (long within : new long[] {0, 500, 749, 750, 999}) {
            setUp();
            at(within);
            BudgetDecision d = acquire(delayed, 1000, lease());
            assertThat(d.admitted()).isTrue();
            assertThat(d.chargedAtMs()).isEqualTo(T0 + within + 250);
            long providerFrees = T0 + within + 250 + 60_000;
            clock.set(providerFrees - 1);
            BudgetDecision early = acquire(delayed, 1, lease());
            assertThat(early.admitted())
                    .as("admitted at %d ms into its second", within)
                    .isFalse();
            assertThat(early.nowMs() + early.waitMs())
                    .as("when it says it fits")
                    .isGreaterThanOrEqualTo(providerFrees);
            clock.set(early.nowMs() + early.waitMs());
            assertThat(acquire(delayed, 1000, lease()).admitted())
                    .as("and it does then")
                    .isTrue();
        }
        setUp();
        at(999);
        acquire(new BudgetLimits(10, 1000, 10, 120_000), 1000, lease());
        at(999 + 60_001);
        assertThat(acquire(new BudgetLimits(10, 1000, 10, 120_000), 1000, lease())
                        .admitted())
                .as(
                        "with no delay, the charge made at 999 ms left 1 ms after its minute: before a provider 250 ms away freed it")
                .isTrue();
    }

    @Test
    void aChargeStampedAheadCountsFromNowAndIsSettledInItsOwnSlot() {
        BudgetLimits delayed = new BudgetLimits(10, 1000, 10, 120_000, 0, 0, 1000);
        at(999);
        BudgetDecision d = acquire(delayed, 600, lease());
        assertThat(d.snapshot().usedTokens()).isEqualTo(600);
        assertThat(acquire(delayed, 500, lease()).admitted())
                .as("counts from now")
                .isFalse();
        store.adjust(key, d.chargedAtMs(), AmountsDelta.tokens(-400)).block(Duration.ofSeconds(5));
        assertThat(snapshot().usedTokens()).isEqualTo(200);
        assertThat(snapshot().leaving()).containsExactly(new BudgetSnapshot.Leaving(T0 + 62_000, 200, 1));
    }

    /**
     * A request that reached the provider late (a stalled loop, a slow network) is counted there
     * late: its answer proves when at the latest, and settling moves the charge to that slot, so
     * it leaves no sooner than the provider's count does. The amount is settled as usual.
     */
    @Test
    void settlingMovesTheChargeToWhenTheAnswerProvesTheProviderCountedIt() {
        BudgetDecision d = acquire(600);
        at(4_300); // the answer came at 6.3 s and the provider says it worked 2 s: counted by 4.3 s
        store.settle(key, d.chargedAtMs(), T0 + 4_300, 600, -100).block(Duration.ofSeconds(5));
        assertThat(snapshot().usedTokens()).isEqualTo(500);
        assertThat(snapshot().usedRequests()).isEqualTo(1);
        assertThat(snapshot().leaving()).containsExactly(new BudgetSnapshot.Leaving(T0 + 65_000, 500, 1));
    }

    @Test
    void settlingWithinTheChargesSlotOrWithNothingProvedOnlyCorrectsTheAmount() {
        at(200);
        BudgetDecision d = acquire(600);
        at(2_000);
        store.settle(key, d.chargedAtMs(), T0 + 900, 600, 50).block(Duration.ofSeconds(5));
        store.settle(key, d.chargedAtMs(), Long.MIN_VALUE, 600, 10).block(Duration.ofSeconds(5));
        assertThat(snapshot().leaving()).containsExactly(new BudgetSnapshot.Leaving(T0 + 61_000, 660, 1));
        // A proof from the future (a clock ahead) moves the charge no further than now.
        store.settle(key, d.chargedAtMs(), T0 + 3_600_000, 660, 0).block(Duration.ofSeconds(5));
        assertThat(snapshot().leaving()).containsExactly(new BudgetSnapshot.Leaving(T0 + 63_000, 660, 1));
    }

    @Test
    void refusesTokensThatDoNotFitAndSaysWhenThisCallWill() {
        assertThat(acquire(600).admitted()).isTrue();
        at(10_000);
        assertThat(acquire(300).admitted()).isTrue();
        at(20_000);
        BudgetDecision refused = acquire(200);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.TOKENS);
        // the 600 charged in the slot [0 s, 1 s) leave the window at t=61 s
        assertThat(refused.waitMs()).isEqualTo(41_000);
        assertThat(refused.snapshot().usedTokens()).isEqualTo(900);
        assertThat(refused.snapshot().inFlight()).isEqualTo(2);
    }

    @Test
    void refusesTheRequestPastTheRequestsPerMinute() {
        BudgetLimits manySlots = new BudgetLimits(10, 1000, 100, 120_000);
        for (int i = 0; i < 10; i++) {
            at(i * 1_000L);
            assertThat(acquire(manySlots, 1, lease()).admitted()).isTrue();
        }
        BudgetDecision refused = acquire(manySlots, 1, lease());
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.REQUESTS);
        assertThat(refused.waitMs()).isEqualTo(61_000 - 9_000);
    }

    @Test
    void refusesWhenEverySlotIsHeldWithAHintAndAReleaseMakesRoom() {
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = lease();
            held.add(id);
            assertThat(acquire(LIMITS, 10, id).admitted()).isTrue();
        }
        BudgetDecision refused = acquire(10);
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.IN_FLIGHT);
        assertThat(refused.waitMs()).isEqualTo(LIMITS.inFlightHintMs()).isPositive();
        assertThat(release(held.get(1))).isTrue();
        assertThat(acquire(10).admitted()).isTrue();
    }

    @Test
    void aRefusalTakesNothing() {
        acquire(1000);
        BudgetDecision refused = acquire(1);
        assertThat(refused.admitted()).isFalse();
        BudgetSnapshot s = snapshot();
        assertThat(s.usedTokens()).isEqualTo(1000);
        assertThat(s.usedRequests()).isEqualTo(1);
        assertThat(s.inFlight()).isEqualTo(1);
    }

    @Test
    void aCallLargerThanTheWholeBudgetNeverFits() {
        BudgetDecision d = acquire(1001);
        assertThat(d.neverFits()).isTrue();
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.TOKENS);
        assertThat(d.waitMs()).isEqualTo(-1);
    }

    @Test
    void aCallNearLongOverflowNeverFitsAndTakesNothing() {
        assertThat(acquire(600).admitted()).isTrue();
        for (long huge : new long[] {Long.MAX_VALUE, 1L << 53, 1001}) {
            BudgetDecision d = acquire(huge);
            assertThat(d.admitted()).as("%d tokens", huge).isFalse();
            assertThat(d.neverFits()).as("%d tokens", huge).isTrue();
        }
        assertThat(snapshot().usedTokens()).isEqualTo(600);
        assertThat(snapshot().usedRequests()).isEqualTo(1);
    }

    @Test
    void adjustmentsPausesAndResetsSaturateAtTheEdges() {
        BudgetDecision first = acquire(600);
        store.adjust(key, first.nowMs(), AmountsDelta.tokens(Long.MAX_VALUE)).block();
        assertThat(snapshot().usedTokens()).isEqualTo(SlidingWindow.MAX_AMOUNT);
        store.adjust(key, first.nowMs(), new AmountsDelta(Long.MIN_VALUE, Long.MIN_VALUE, 0, 0))
                .block();
        assertThat(snapshot().usedTokens()).isZero();
        assertThat(snapshot().usedRequests()).isZero();
        assertThat(store.pause(key, Long.MAX_VALUE).block()).isEqualTo(T0 + ProviderBudget.MAX_PAUSE_MS);
        store.correct(key, LIMITS, 0, 0, Long.MAX_VALUE).block(); // a reset far away: held for a window, no wrap
        assertThat(snapshot().usedTokens()).isEqualTo(1000);
        assertThat(snapshot().usedRequests()).isEqualTo(10);
    }

    /** A provider that meters input and output apart, with no total (Anthropic's ITPM and OTPM). */
    static final BudgetLimits SPLIT = new BudgetLimits(10, Long.MAX_VALUE, 3, 120_000, 5_000, 1_000);

    BudgetDecision acquireSplit(long input, long output) {
        return store.tryAcquire(key, SPLIT, new Acquire(Amounts.call(input + output, input, output), lease(), true))
                .block(Duration.ofSeconds(5));
    }

    @Test
    void aSplitBudgetChargesInputAndOutputAndRefusesOnTheOneThatBinds() {
        BudgetDecision first = acquireSplit(800, 800);
        assertThat(first.admitted()).isTrue();
        assertThat(first.snapshot().usedInputTokens()).isEqualTo(800);
        assertThat(first.snapshot().usedOutputTokens()).isEqualTo(800);
        at(3_000);
        BudgetDecision refused = acquireSplit(400, 300);
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        assertThat(refused.waitMs()).isEqualTo(61_000 - 3_000);
        assertThat(refused.snapshot().usedInputTokens()).as("all or nothing").isEqualTo(800);
        assertThat(refused.snapshot().usedRequests()).isEqualTo(1);
        assertThat(acquireSplit(4_500, 0).refusal()).isEqualTo(BudgetRefusal.INPUT_TOKENS);
        assertThat(acquireSplit(10, 1_001).neverFits()).isTrue();

        // The answer wrote 100 of its 800: the output window is settled to that, the room is back.
        store.adjust(key, first.nowMs(), new AmountsDelta(0, 0, 0, -700)).block(Duration.ofSeconds(5));
        BudgetSnapshot s = store.snapshot(key, SPLIT).block(Duration.ofSeconds(5));
        assertThat(s.usedOutputTokens()).isEqualTo(100);
        assertThat(s.usedTokens()).isEqualTo(1_600);
        assertThat(acquireSplit(400, 300).admitted()).isTrue();
        // Pushed back: the attempt's input and output are given back with its request and tokens.
        BudgetDecision last = acquireSplit(100, 100);
        store.adjust(key, last.nowMs(), new AmountsDelta(-1, -200, -100, -100)).block(Duration.ofSeconds(5));
        s = store.snapshot(key, SPLIT).block(Duration.ofSeconds(5));
        assertThat(s.usedInputTokens()).isEqualTo(1_200);
        assertThat(s.usedOutputTokens()).isEqualTo(400);
        assertThat(s.usedRequests()).isEqualTo(2);
        assertThat(s.inputUtilisation()).isEqualTo(1_200 / 5_000.0);
    }

    @Test
    void aBudgetWithoutTheSplitReportsNoInputOrOutput() {
        BudgetDecision d = store.tryAcquire(key, LIMITS, new Acquire(Amounts.call(300, 200, 100), lease(), true))
                .block(Duration.ofSeconds(5));
        assertThat(d.admitted()).isTrue();
        assertThat(d.snapshot().usedInputTokens()).isZero();
        assertThat(d.snapshot().usedOutputTokens()).isZero();
        assertThat(snapshot()).isEqualTo(d.snapshot());
    }

    @Test
    void releaseIsIdempotent() {
        String id = lease();
        acquire(LIMITS, 10, id);
        assertThat(release(id)).isTrue();
        assertThat(release(id)).isFalse();
        assertThat(release("never-taken")).isFalse();
        assertThat(snapshot().inFlight()).isZero();
        assertThat(snapshot().usedTokens())
                .as("release frees the slot, not the tokens")
                .isEqualTo(10);
    }

    @Test
    void anUnreleasedLeaseExpiresAndItsSlotReturns() {
        for (int i = 0; i < 3; i++) assertThat(acquire(10).admitted()).isTrue();
        at(LIMITS.leaseMs() - 1);
        assertThat(snapshot().inFlight()).isEqualTo(3);
        assertThat(acquire(10).refusal()).isEqualTo(BudgetRefusal.IN_FLIGHT);
        at(LIMITS.leaseMs());
        assertThat(snapshot().inFlight()).isZero();
        assertThat(release("lease-1"))
                .as("a late release of an expired lease frees nothing")
                .isFalse();
        assertThat(acquire(10).admitted()).isTrue();
    }

    @Test
    void aPauseHoldsEveryAdmissionOffUntilItEnds() {
        Long until = store.pause(key, 5_000).block();
        assertThat(until).isEqualTo(T0 + 5_000);
        at(1_000);
        assertThat(store.pause(key, 1_000).block())
                .as("a shorter pause does not cut a longer one")
                .isEqualTo(T0 + 5_000);
        BudgetDecision refused = acquire(10);
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.PAUSED);
        assertThat(refused.waitMs()).isEqualTo(4_000);
        assertThat(refused.snapshot().pausedUntilMs()).isEqualTo(T0 + 5_000);
        at(5_000);
        assertThat(acquire(10).admitted()).isTrue();
        assertThat(snapshot().paused()).isFalse();
    }

    @Test
    void whenSeveralThingsBlockTheOneThatFreesLastIsNamed() {
        acquire(1000);
        at(20_000);
        store.pause(key, 5_000).block();
        BudgetDecision refused = acquire(100);
        assertThat(refused.refusal()).isEqualTo(BudgetRefusal.TOKENS);
        assertThat(refused.waitMs()).isEqualTo(41_000);
        store.pause(key, 50_000).block();
        assertThat(acquire(100).refusal()).isEqualTo(BudgetRefusal.PAUSED);
    }

    @Test
    void reconcilingTheEstimateGivesBackTheUnusedTokens() {
        BudgetDecision d = acquire(1000);
        at(3_000);
        store.adjust(key, d.nowMs(), AmountsDelta.tokens(400 - 1000)).block();
        assertThat(snapshot().usedTokens()).isEqualTo(400);
        assertThat(acquire(600).admitted()).isTrue();
        store.adjust(key, d.nowMs(), AmountsDelta.tokens(50)).block();
        assertThat(snapshot().usedTokens())
                .as("usage above the estimate is charged too")
                .isEqualTo(1050);
    }

    @Test
    void aCallThatNeverReachedTheProviderCanBeRefundedWhole() {
        BudgetDecision d = acquire(500);
        store.adjust(key, d.nowMs(), new AmountsDelta(-1, -500, 0, 0)).block();
        BudgetSnapshot s = snapshot();
        assertThat(s.usedTokens()).isZero();
        assertThat(s.usedRequests()).isZero();
    }

    @Test
    void theUpstreamsRemainingCapsTheLocalRoomUntilItsReset() {
        acquire(100);
        // the provider has seen other traffic on this key: 300 tokens and 4 requests left, full again in 10 s
        store.correct(key, LIMITS, 4, 300, 10_000).block();
        BudgetSnapshot s = snapshot();
        assertThat(s.remainingTokens()).isEqualTo(300);
        assertThat(s.remainingRequests()).isEqualTo(4);
        assertThat(acquire(301).refusal()).isEqualTo(BudgetRefusal.TOKENS);
        at(9_999);
        assertThat(snapshot().remainingTokens()).isEqualTo(300);
        at(10_000);
        assertThat(snapshot().remainingTokens())
                .as("the correction leaves at the upstream's reset")
                .isEqualTo(900);
        assertThat(snapshot().remainingRequests()).isEqualTo(9);
    }

    /**
     * A provider that counts calls a moment later than they were charged here still holds them for
     * that moment after they left this window: its answers say less room than the window shows, then,
     * a moment later, the room back. Its latest word replaces the last one (held to the reset, a minute
     * away, the first phantom kept that room idle for the minute); the window's own charges stay.
     */
    @Test
    void theUpstreamsLatestWordReplacesItsLast() {
        acquire(100);
        store.correct(key, LIMITS, -1, 300, 60_000).block();
        assertThat(snapshot().remainingTokens()).isEqualTo(300);
        at(1_000);
        store.correct(key, LIMITS, -1, 700, 59_000).block();
        assertThat(snapshot().remainingTokens())
                .as("the last phantom taken back, the new one charged")
                .isEqualTo(700);
        store.correct(key, LIMITS, 9, -1, 59_000).block();
        assertThat(snapshot().remainingTokens())
                .as("a word on requests alone leaves the tokens' phantom")
                .isEqualTo(700);
        store.correct(key, LIMITS, -1, 1_000, 0).block();
        BudgetSnapshot s = snapshot();
        assertThat(s.remainingTokens())
                .as("the room back, the window's own charge kept")
                .isEqualTo(900);
        assertThat(s.remainingRequests()).isEqualTo(9);
        at(61_000);
        assertThat(snapshot().remainingTokens()).isEqualTo(1_000);
    }

    /**
     * The upstream's word is as old as its answer's way back, and a provider counts a call a moment
     * after it was charged here: a moment after calls left this window, it may still count them.
     * Within two slots of their leaving that is the same calls, not excess; past that, excess again.
     */
    @Test
    void usageThatLeftTheWindowWithinTwoSlotsIsNotExcess() {
        acquire(600); // leaves at 61 s
        at(61_500);
        store.correct(key, LIMITS, -1, 400, 59_000).block();
        assertThat(snapshot().remainingTokens())
                .as("the calls that left at 61 s, counted a moment later")
                .isEqualTo(1_000);
        at(62_999);
        store.correct(key, LIMITS, -1, 500, 59_000).block();
        assertThat(snapshot().remainingTokens()).isEqualTo(1_000);
        at(63_000);
        store.correct(key, LIMITS, -1, 400, 57_000).block();
        assertThat(snapshot().remainingTokens()).as("two slots on: excess").isEqualTo(400);
    }

    @Test
    void aCorrectionNeverAddsRoom() {
        acquire(800);
        store.correct(key, LIMITS, 100, 5_000, 1_000).block();
        store.correct(key, LIMITS, -1, -1, 1_000).block();
        BudgetSnapshot s = snapshot();
        assertThat(s.usedTokens()).isEqualTo(800);
        assertThat(s.usedRequests()).isEqualTo(1);
    }

    /**
     * Without a waiting job the dispatcher does not need the leaving schedule, and a store may
     * leave it out while the window is under half full; the counts are the same either way, and
     * past half full, or when asked, the schedule is there and sums to them.
     */
    @Test
    void theLeavingScheduleMayBeLeftOutOnlyWhileNobodyNeedsItAndTheWindowIsUnderHalfFull() {
        BudgetDecision light = store.tryAcquire(key, LIMITS, new Acquire(Amounts.call(300, 0, 0), lease(), false))
                .block(Duration.ofSeconds(5));
        assertThat(light.admitted()).isTrue();
        assertThat(light.snapshot().usedTokens()).isEqualTo(300);
        if (light.snapshot().leaving() != null)
            assertThat(light.snapshot().leaving()).hasSize(1);
        at(1_000);
        BudgetDecision half = store.tryAcquire(key, LIMITS, new Acquire(Amounts.call(200, 0, 0), lease(), false))
                .block(Duration.ofSeconds(5));
        assertThat(half.snapshot().usedTokens()).isEqualTo(500);
        assertThat(half.snapshot().leaving())
                .as("half full: the door may need it")
                .containsExactly(
                        new BudgetSnapshot.Leaving(T0 + 61_000, 300, 1),
                        new BudgetSnapshot.Leaving(T0 + 62_000, 200, 1));
        BudgetDecision asked = store.tryAcquire(key, LIMITS, new Acquire(Amounts.call(1, 0, 0), lease(), true))
                .block(Duration.ofSeconds(5));
        assertThat(asked.snapshot().leaving()).hasSize(2);
    }

    @Test
    void anUpstreamReportingTheWholeCapOrMoreChangesNothingSoTheCallIsSkipped() {
        acquire(100);
        long capR = LIMITS.requestsPerMinute();
        long capT = LIMITS.tokensPerMinute();
        for (long[] reported : new long[][] {{capR, capT}, {capR * 2, -1}, {-1, capT}, {-1, -1}}) {
            assertThat(ProviderBudget.correctionMayCharge(LIMITS, reported[0], reported[1]))
                    .isFalse();
            store.correct(key, LIMITS, reported[0], reported[1], 1_000).block();
            assertThat(snapshot().usedTokens()).isEqualTo(100);
            assertThat(snapshot().usedRequests()).isEqualTo(1);
        }
        assertThat(ProviderBudget.correctionMayCharge(LIMITS, capR, capT - 1)).isTrue();
        assertThat(ProviderBudget.correctionMayCharge(LIMITS, capR - 1, -1)).isTrue();
    }

    @Test
    void aResetBeyondTheWindowHoldsTheCorrectionForAWindow() {
        store.correct(key, LIMITS, -1, 0, 600_000).block();
        at(60_999);
        assertThat(snapshot().remainingTokens()).isZero();
        at(61_000);
        assertThat(snapshot().remainingTokens()).isEqualTo(1000);
    }

    @Test
    void resetTellsWhenTheNewestUsageLeaves() {
        at(5_000);
        store.adjust(key, T0 + 4_000, AmountsDelta.tokens(-100)).block(); // a refund in an empty window leaves no usage
        store.correct(key, LIMITS, -1, 900, 1_000).block(); // 100 phantom tokens that leave at t=6 s
        assertThat(snapshot().resetMs()).isEqualTo(1_000);
        at(6_000);
        assertThat(snapshot().resetMs()).isZero();
        assertThat(snapshot().remainingTokens()).isEqualTo(1000);
    }

    @Test
    void budgetsAreIndependent() {
        acquire(1000);
        assertThat(store.tryAcquire("other-" + key, LIMITS, Acquire.of(1000, lease()))
                        .block()
                        .admitted())
                .isTrue();
        assertThat(acquire(1).admitted()).isFalse();
    }

    @Test
    void aLowerAdaptiveLimitCapsTheSlots() {
        BudgetLimits adaptive = LIMITS.withMaxInFlight(1);
        assertThat(acquire(adaptive, 1, lease()).admitted()).isTrue();
        assertThat(acquire(adaptive, 1, lease()).refusal()).isEqualTo(BudgetRefusal.IN_FLIGHT);
        assertThat(acquire(LIMITS, 1, lease()).admitted()).isTrue();
    }

    @Test
    void aPauseSetByOneReplicaHoldsTheOther() {
        ProviderBudgetStore other = replica(store, clock);
        other.pause(key, 2_000).block();
        assertThat(acquire(1).refusal()).isEqualTo(BudgetRefusal.PAUSED);
    }

    /**
     * Two replicas, many threads, one burst of admissions: exactly the in-flight limit is
     * admitted; releasing every lease (twice, from either replica) frees exactly those slots.
     */
    @Test
    void concurrentAdmissionsFromTwoReplicasNeverExceedTheSlots() {
        ProviderBudgetStore[] replicas = {store, replica(store, clock)};
        BudgetLimits limits = new BudgetLimits(100_000, 10_000_000, 20, 120_000);
        List<String> admitted = Collections.synchronizedList(new ArrayList<>());
        Flux.range(0, 400)
                .parallel(16)
                .runOn(Schedulers.parallel())
                .flatMap(i -> replicas[i % 2]
                        .tryAcquire(key, limits, Acquire.of(10, "c-" + i))
                        .filter(BudgetDecision::admitted)
                        .map(d -> "c-" + i))
                .doOnNext(admitted::add)
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        assertThat(admitted).hasSize(20);
        assertThat(replicas[1].snapshot(key, limits).block().inFlight()).isEqualTo(20);

        AtomicInteger freed = new AtomicInteger();
        Flux.fromIterable(admitted)
                .concatWith(Flux.fromIterable(admitted))
                .parallel(16)
                .runOn(Schedulers.parallel())
                .flatMap(id -> replicas[Math.abs(id.hashCode()) % 2].release(key, id))
                .filter(Boolean::booleanValue)
                .doOnNext(x -> freed.incrementAndGet())
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        assertThat(freed).hasValue(20);
        assertThat(store.snapshot(key, limits).block().inFlight()).isZero();
    }

    /** The same burst against the window: never one token or request more than the caps. */
    @Test
    void concurrentAdmissionsFromTwoReplicasNeverOverspendTheWindow() {
        ProviderBudgetStore[] replicas = {store, replica(store, clock)};
        BudgetLimits limits = new BudgetLimits(90, 5_000, 1_000, 120_000);
        AtomicLong tokens = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        Flux.range(0, 400)
                .parallel(16)
                .runOn(Schedulers.parallel())
                .flatMap(i -> {
                    long size = i % 3 == 0 ? 37 : 71;
                    return replicas[i % 2]
                            .tryAcquire(key, limits, Acquire.of(size, "w-" + i))
                            .filter(BudgetDecision::admitted)
                            .map(d -> size);
                })
                .doOnNext(size -> {
                    tokens.addAndGet(size);
                    requests.incrementAndGet();
                })
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        BudgetSnapshot s = store.snapshot(key, limits).block();
        assertThat(tokens.get()).isLessThanOrEqualTo(5_000).isEqualTo(s.usedTokens());
        assertThat(requests.get()).isLessThanOrEqualTo(90).isEqualTo(s.usedRequests());
        // refusals only once the window was (nearly) full: the smallest call no longer fitted, or requests ran out
        assertThat(s.usedTokens() > 5_000 - 37 || s.usedRequests() == 90).isTrue();
    }

    /**
     * Steady churn from two replicas and many threads: acquire, hold, release. The concurrency
     * the callers observe never exceeds the limit, and when every caller has released, no slot
     * is held: nothing leaks.
     */
    @Test
    void churnFromTwoReplicasKeepsConcurrencyUnderTheLimitAndLeaksNothing() {
        ProviderBudgetStore[] replicas = {store, replica(store, clock)};
        BudgetLimits limits = new BudgetLimits(1_000_000, 1_000_000_000, 8, 120_000);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger maxHolding = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        Flux.range(0, 600)
                .parallel(16)
                .runOn(Schedulers.parallel())
                .flatMap(i -> {
                    ProviderBudgetStore r = replicas[i % 2];
                    String id = "x-" + i;
                    return r.tryAcquire(key, limits, Acquire.of(1, id)).flatMap(d -> {
                        if (!d.admitted()) return Mono.just(false);
                        maxHolding.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        served.incrementAndGet();
                        holding.decrementAndGet(); // before the store frees it: the count we see never lags behind
                        return replicas[(i + 1) % 2].release(key, id);
                    });
                })
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        assertThat(served.get()).isPositive();
        assertThat(maxHolding.get()).isLessThanOrEqualTo(8);
        assertThat(store.snapshot(key, limits).block().inFlight()).isZero();
    }

    // A replica's slice (ProviderBudgetStore.lease): what ReplicaLeases spends from without a round trip.

    SliceGrant lease(BudgetLimits limits, SliceAsk ask) {
        return store.lease(key, limits, ask).block(Duration.ofSeconds(5));
    }

    static SliceAsk ask(
            String replica, Amounts need, boolean needSlot, Amounts want, int inUse, int held, int wantSlots) {
        return new SliceAsk(
                replica, List.of(), Amounts.ZERO, 0, need, needSlot, want, inUse, held, wantSlots, 10_000, true);
    }

    @Test
    void aSliceIsChargedLikeTheCallsItCoversAndItsRestGoesBack() {
        SliceGrant g = lease(LIMITS, ask("r1", Amounts.call(100, 0, 0), true, new Amounts(4, 400, 0, 0), 0, 0, 2));
        assertThat(g.admitted()).isTrue();
        assertThat(g.granted()).isEqualTo(new Amounts(4, 400, 0, 0));
        assertThat(g.chargedAtMs()).isEqualTo(T0);
        assertThat(g.slotsHeld())
                .as("3 slots free: under twice the 2 wanted, only the one needed")
                .isEqualTo(1);
        assertThat(snapshot().usedTokens()).isEqualTo(400);
        assertThat(snapshot().usedRequests()).isEqualTo(4);
        assertThat(snapshot().inFlight()).isEqualTo(1);

        // One call was spent (100 tokens, a request, a slot in use): the rest goes back, the spare slot too.
        at(300);
        SliceGrant back = lease(
                LIMITS,
                new SliceAsk(
                        "r1",
                        List.of(),
                        new Amounts(3, 300, 0, 0),
                        g.chargedAtMs(),
                        Amounts.ZERO,
                        false,
                        Amounts.ZERO,
                        1,
                        1,
                        1,
                        10_000,
                        false));
        assertThat(back.admitted()).isTrue();
        assertThat(back.granted()).isEqualTo(Amounts.ZERO);
        assertThat(back.slotsHeld()).isEqualTo(1);
        assertThat(snapshot().usedTokens()).isEqualTo(100);
        assertThat(snapshot().usedRequests()).isEqualTo(1);
        assertThat(snapshot().inFlight()).isEqualTo(1);
    }

    @Test
    void whereRoomIsScarceASliceIsOnlyTheNeed() {
        assertThat(acquire(700).admitted()).isTrue();
        SliceGrant g = lease(LIMITS, ask("r1", Amounts.call(100, 0, 0), true, new Amounts(3, 200, 0, 0), 0, 0, 2));
        assertThat(g.admitted()).isTrue();
        assertThat(g.granted())
                .as("300 tokens left, under twice the 200 wanted; 9 requests left, plenty for 3")
                .isEqualTo(new Amounts(3, 100, 0, 0));
        assertThat(g.slotsHeld())
                .as("one slot left after the call's, under twice the 2 wanted")
                .isEqualTo(1);
    }

    @Test
    void aNeedThatDoesNotFitTakesNothingAndSaysWhenItWill() {
        assertThat(acquire(900).admitted()).isTrue();
        at(5_000);
        SliceGrant g = lease(LIMITS, ask("r1", Amounts.call(200, 0, 0), true, new Amounts(5, 1000, 0, 0), 0, 0, 3));
        assertThat(g.admitted()).isFalse();
        assertThat(g.refusal()).isEqualTo(BudgetRefusal.TOKENS);
        assertThat(g.waitMs()).isEqualTo(ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS - 5_000);
        assertThat(g.granted()).isEqualTo(Amounts.ZERO);
        assertThat(g.slotsHeld()).isZero();
        assertThat(snapshot().usedTokens()).isEqualTo(900);
        assertThat(snapshot().inFlight()).isEqualTo(1);
    }

    @Test
    void theSettlementsAnAskCarriesAreApplied() {
        BudgetDecision a = acquire(300);
        BudgetDecision b = acquire(200);
        at(4_000);
        SliceAsk ask = new SliceAsk(
                "r1",
                List.of(
                        BudgetSettlement.adjust(a.chargedAtMs(), AmountsDelta.tokens(-100)), // a used 200, not 300
                        new BudgetSettlement(
                                b.chargedAtMs(), T0 + 3_500, 200, 50, 0, 0, 0)), // b counted at 3.5 s, used 250
                Amounts.ZERO,
                0,
                Amounts.ZERO,
                false,
                Amounts.ZERO,
                0,
                0,
                0,
                10_000,
                false);
        assertThat(lease(LIMITS, ask).admitted()).isTrue();
        BudgetSnapshot s = snapshot();
        assertThat(s.usedTokens()).isEqualTo(450);
        assertThat(s.usedRequests()).isEqualTo(2);
        assertThat(s.leaving())
                .as("b's charge moved to the slot it was counted in")
                .contains(new BudgetSnapshot.Leaving(
                        T0 + 3_000 + ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS, 250, 1));
    }

    @Test
    void heldSlotsBindEveryReplicaAndExpireWhenNotRenewed() {
        ProviderBudgetStore other = replica(store, clock);
        SliceGrant mine = lease(LIMITS, ask("r1", Amounts.call(10, 0, 0), true, Amounts.call(10, 0, 0), 0, 0, 1));
        assertThat(mine.slotsHeld()).isEqualTo(1);
        assertThat(acquire(10).admitted()).isTrue();
        assertThat(acquire(10).admitted()).isTrue();
        BudgetDecision full =
                other.tryAcquire(key, LIMITS, Acquire.of(10, "other")).block(Duration.ofSeconds(5));
        assertThat(full.admitted()).isFalse();
        assertThat(full.refusal()).isEqualTo(BudgetRefusal.IN_FLIGHT);

        at(10_000); // the slot's ttl: the replica holding it said nothing since (it died)
        assertThat(other.tryAcquire(key, LIMITS, Acquire.of(10, "other"))
                        .block(Duration.ofSeconds(5))
                        .admitted())
                .isTrue();
    }

    @Test
    void slotsInUseStayHeldWhenTheLimitFallsAndNoSpareIsTaken() {
        SliceGrant g = lease(LIMITS, ask("r1", Amounts.call(10, 0, 0), true, Amounts.call(10, 0, 0), 0, 0, 3));
        assertThat(g.slotsHeld()).isEqualTo(1); // 3 free: under twice the 3 wanted, only the need
        SliceGrant h = lease(LIMITS, ask("r1", Amounts.ZERO, true, Amounts.ZERO, 1, 1, 3));
        assertThat(h.slotsHeld()).isEqualTo(2);
        BudgetLimits lowered = LIMITS.withMaxInFlight(1);
        SliceGrant k = lease(lowered, ask("r1", Amounts.ZERO, false, Amounts.ZERO, 2, 2, 3));
        assertThat(k.slotsHeld())
                .as("both in use: kept above the lowered limit, none added")
                .isEqualTo(2);
        assertThat(snapshot().inFlight()).isEqualTo(2);
    }

    @Test
    void aPauseGrantsNothingNewButStillAppliesAndRenews() {
        store.pause(key, 2_000).block(Duration.ofSeconds(5));
        SliceGrant g = lease(LIMITS, ask("r1", Amounts.call(10, 0, 0), true, Amounts.call(10, 0, 0), 0, 0, 1));
        assertThat(g.admitted()).isFalse();
        assertThat(g.refusal()).isEqualTo(BudgetRefusal.PAUSED);
        assertThat(g.waitMs()).isEqualTo(2_000);
        SliceGrant renewal = lease(LIMITS, ask("r1", Amounts.ZERO, false, new Amounts(5, 50, 0, 0), 0, 0, 0));
        assertThat(renewal.admitted()).isTrue();
        assertThat(renewal.granted()).isEqualTo(Amounts.ZERO);
    }
}
