package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.WindowLimit;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * What every {@link QuotaStore} must do, run against each implementation (in memory, Redis).
 * Time is a fake clock; t0 is aligned to a minute so slot arithmetic is easy to read.
 */
abstract class QuotaStoreContract {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final WindowLimit MINUTE = new WindowLimit("minute", 60, 1000, 10);
    static final WindowLimit HOUR = new WindowLimit("hour", 3600, 2500, 100);
    static final List<WindowLimit> WINDOWS = List.of(MINUTE, HOUR);

    final FakeClock clock = new FakeClock(T0);
    QuotaStore store;
    String tenant;

    abstract QuotaStore newStore(FakeClock clock);

    @BeforeEach
    void setUp() {
        store = newStore(clock);
        tenant = "t-" + UUID.randomUUID();
    }

    QuotaDecision acquire(long tokens) {
        return store.acquire(tenant, WINDOWS, tokens, 1).block(Duration.ofSeconds(5));
    }

    void at(long msFromT0) {
        clock.set(T0 + msFromT0);
    }

    @Test
    void admitsUpToTheCapThenRefusesWithTheMomentThisRequestFits() {
        assertThat(acquire(600).admitted()).isTrue();
        at(10_000);
        QuotaDecision second = acquire(400);
        assertThat(second.admitted()).isTrue();
        assertThat(second.windows().get(0).remainingTokens()).isZero();

        at(20_000);
        QuotaDecision refused = acquire(300);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.blocking()).isEqualTo("minute");
        // the 600 charged in the slot [0 s, 1 s) leave the window at t=61 s: 41 s from now
        assertThat(refused.retryAfterMs()).isEqualTo(41_000);
        at(60_999);
        assertThat(acquire(300).admitted()).isFalse();
        at(61_000);
        assertThat(acquire(300).admitted()).isTrue();
    }

    @Test
    void aRefusalChargesNothingInAnyWindow() {
        assertThat(acquire(1000).admitted()).isTrue();
        assertThat(acquire(1).admitted()).isFalse();
        List<WindowUsage> usage = store.peek(tenant, WINDOWS).block();
        assertThat(usage).extracting(WindowUsage::usedTokens).containsExactly(1000L, 1000L);
        assertThat(usage).extracting(WindowUsage::usedRequests).containsExactly(1L, 1L);
    }

    @Test
    void theWindowSlidesInsteadOfResettingAtTheMinute() {
        at(59_500);
        assertThat(acquire(1000).admitted()).isTrue();
        at(60_500); // a fixed window would have reset here
        QuotaDecision refused = acquire(1000);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.retryAfterMs()).isEqualTo(59_500);
        at(119_999);
        assertThat(acquire(1000).admitted()).isFalse();
        at(120_000);
        assertThat(acquire(1000).admitted()).isTrue();
    }

    @Test
    void theLongerWindowCapsTheSustainedRateAndTellsWhenItFrees() {
        for (int i = 0; i < 2; i++) {
            at(i * 61_000L);
            assertThat(acquire(1000).admitted()).isTrue();
        }
        at(122_000);
        assertThat(acquire(500).admitted()).isTrue(); // hour: 2500 of 2500
        at(183_000);
        QuotaDecision refused = acquire(100);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.blocking()).isEqualTo("hour");
        // the hour's first slot [0 s, 60 s) leaves at t=3660 s
        assertThat(refused.retryAfterMs()).isEqualTo(3_660_000 - 183_000);
        assertThat(refused.windows().get(0).usedTokens()).isZero();
    }

    @Test
    void requestsAreCappedLikeTokens() {
        for (int i = 0; i < 10; i++) assertThat(acquire(1).admitted()).isTrue();
        QuotaDecision refused = acquire(1);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.windows().get(0).remainingRequests()).isZero();
    }

    @Test
    void aRequestLargerThanAnyWindowNeverFits() {
        QuotaDecision d = acquire(1001);
        assertThat(d.admitted()).isFalse();
        assertThat(d.retryAfterMs()).isEqualTo(-1);
    }

    /**
     * The report of issue 12: max_tokens 2^63-1 on a window in use wrapped the in-memory sum
     * negative, was admitted, and a later refund clamped the slot to zero, erasing the minute.
     */
    @Test
    void aChargeNearLongOverflowNeverFitsAndErasesNothing() {
        assertThat(acquire(600).admitted()).isTrue();
        for (long huge : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 599, 1L << 62, (1L << 53) + 1, 1L << 53}) {
            QuotaDecision d = acquire(huge);
            assertThat(d.admitted()).as("%d tokens", huge).isFalse();
            assertThat(d.retryAfterMs()).as("%d tokens never fit", huge).isEqualTo(-1);
        }
        List<WindowUsage> usage = store.peek(tenant, WINDOWS).block();
        assertThat(usage).extracting(WindowUsage::usedTokens).containsExactly(600L, 600L);
        assertThat(usage).extracting(WindowUsage::usedRequests).containsExactly(1L, 1L);
        assertThat(acquire(401).admitted()).as("the 600 still count").isFalse();
    }

    @Test
    void adjustmentsSaturateAtTheEdgesInsteadOfWrapping() {
        QuotaDecision first = acquire(600);
        store.adjust(tenant, WINDOWS, first.nowMs(), Long.MAX_VALUE, Long.MAX_VALUE)
                .block();
        List<WindowUsage> full = store.peek(tenant, WINDOWS).block();
        assertThat(full).extracting(WindowUsage::usedTokens).containsOnly(SlidingWindow.MAX_AMOUNT);
        assertThat(full).extracting(WindowUsage::usedRequests).containsOnly(SlidingWindow.MAX_AMOUNT);
        assertThat(acquire(1).admitted()).isFalse();
        store.adjust(tenant, WINDOWS, first.nowMs(), Long.MAX_VALUE, 1).block(); // already at the ceiling: stays there
        assertThat(store.peek(tenant, WINDOWS).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(SlidingWindow.MAX_AMOUNT);
        store.adjust(tenant, WINDOWS, first.nowMs(), Long.MIN_VALUE, Long.MIN_VALUE)
                .block();
        assertThat(store.peek(tenant, WINDOWS).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(0L);
        assertThat(acquire(1000).admitted()).isTrue();
    }

    @Test
    void aNegativeChargeIsRefusedNotTakenAsARefund() {
        assertThat(acquire(600).admitted()).isTrue();
        assertThatThrownBy(() -> acquire(-600)).isNotNull();
        assertThat(store.peek(tenant, WINDOWS).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(600L);
    }

    @Test
    void aCapAboveTheLargestAmountCountsAsIt() {
        List<WindowLimit> huge = List.of(new WindowLimit("minute", 60, Long.MAX_VALUE, Long.MAX_VALUE));
        assertThat(store.acquire(tenant, huge, SlidingWindow.MAX_AMOUNT, 1)
                        .block()
                        .admitted())
                .isTrue();
        QuotaDecision more = store.acquire(tenant, huge, 1, 1).block();
        assertThat(more.admitted()).isFalse();
        assertThat(store.acquire(tenant, huge, SlidingWindow.MAX_AMOUNT + 1, 1)
                        .block()
                        .retryAfterMs())
                .isEqualTo(-1);
    }

    /** A tier keeping a window for gpt-4o (300 tokens a minute, requests not capped) beside its own. */
    static final TierModels MODELS = new TierModels(
            Set.of("gpt-4o", "gpt-4o-mini"), Map.of("gpt-4o", new TierModels.ModelWindow(300, Long.MAX_VALUE)));

    static final List<WindowLimit> GPT_4O = MODELS.windowsFor(WINDOWS, "gpt-4o");

    @Test
    void aModelsWindowIsChargedInTheSameStepAndRefusesAloneWithWhenThisRequestFits() {
        assertThat(MODELS.windowsFor(WINDOWS, "gpt-4o-mini"))
                .as("no window of its own")
                .isEqualTo(WINDOWS);
        QuotaDecision first = store.acquire(tenant, GPT_4O, 200, 1).block();
        assertThat(first.admitted()).isTrue();
        assertThat(first.windows()).extracting(WindowUsage::name).containsExactly("minute", "hour", "model:gpt-4o");
        assertThat(first.windows()).extracting(WindowUsage::usedTokens).containsExactly(200L, 200L, 200L);

        at(10_000);
        QuotaDecision refused = store.acquire(tenant, GPT_4O, 200, 1).block();
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.blocking()).isEqualTo("model:gpt-4o");
        // the 200 charged in the slot [0 s, 1 s) leave the model's minute at t=61 s: 51 s from now
        assertThat(refused.retryAfterMs()).isEqualTo(51_000);
        assertThat(store.peek(tenant, GPT_4O).block())
                .as("the refusal charged no window, the tenant's nor the model's")
                .extracting(WindowUsage::usedTokens)
                .containsExactly(200L, 200L, 200L);

        // Another model still passes, in the tenant's windows only.
        assertThat(acquire(200).admitted()).isTrue();
        assertThat(store.peek(tenant, GPT_4O).block())
                .extracting(WindowUsage::usedTokens)
                .containsExactly(400L, 400L, 200L);

        // Settled like the tenant's windows: the model's window gets its refund too.
        store.adjust(tenant, GPT_4O, first.nowMs(), -150, 0).block();
        assertThat(store.peek(tenant, GPT_4O).block())
                .extracting(WindowUsage::usedTokens)
                .containsExactly(250L, 250L, 50L);
        assertThat(store.acquire(tenant, GPT_4O, 250, 1).block().admitted()).isTrue();
        assertThat(store.acquire(tenant, GPT_4O, 1, 1).block().blocking()).isEqualTo("model:gpt-4o");
    }

    @Test
    void aModelsWindowNearLongMaxSaturatesInsteadOfWrapping() {
        List<WindowLimit> windows = new TierModels(
                        null, Map.of("gpt-4o", new TierModels.ModelWindow(Long.MAX_VALUE, Long.MAX_VALUE)))
                .windowsFor(List.of(new WindowLimit("minute", 60, Long.MAX_VALUE, Long.MAX_VALUE)), "gpt-4o");
        QuotaDecision d =
                store.acquire(tenant, windows, SlidingWindow.MAX_AMOUNT, 1).block();
        assertThat(d.admitted()).isTrue();
        assertThat(store.acquire(tenant, windows, 1, 1).block().admitted()).isFalse();
        assertThat(store.acquire(tenant, windows, Long.MAX_VALUE, 1).block().retryAfterMs())
                .isEqualTo(-1);
        store.adjust(tenant, windows, d.nowMs(), Long.MAX_VALUE, Long.MAX_VALUE).block();
        assertThat(store.peek(tenant, windows).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(SlidingWindow.MAX_AMOUNT);
        store.adjust(tenant, windows, d.nowMs(), Long.MIN_VALUE, Long.MIN_VALUE).block();
        assertThat(store.peek(tenant, windows).block())
                .extracting(WindowUsage::usedTokens)
                .containsOnly(0L);
    }

    @Test
    void aRefundReturnsTokensToTheWindowsTheyWereChargedIn() {
        QuotaDecision d = acquire(1000);
        at(5_000);
        store.adjust(tenant, WINDOWS, d.nowMs(), -700, 0).block();
        List<WindowUsage> usage = store.peek(tenant, WINDOWS).block();
        assertThat(usage).extracting(WindowUsage::usedTokens).containsExactly(300L, 300L);
        assertThat(acquire(700).admitted()).isTrue();
        assertThat(acquire(1).admitted()).isFalse();
    }

    @Test
    void anExtraChargeIsAddedAndARefundNeverGoesBelowZero() {
        QuotaDecision d = acquire(100);
        store.adjust(tenant, WINDOWS, d.nowMs(), 50, 0).block();
        assertThat(store.peek(tenant, WINDOWS).block().get(0).usedTokens()).isEqualTo(150);
        store.adjust(tenant, WINDOWS, d.nowMs(), -10_000, -5).block();
        WindowUsage minute = store.peek(tenant, WINDOWS).block().get(0);
        assertThat(minute.usedTokens()).isZero();
        assertThat(minute.usedRequests()).isZero();
    }

    @Test
    void aRefundForAChargeThatLeftTheWindowChangesNothingThere() {
        QuotaDecision d = acquire(800);
        at(61_000);
        assertThat(acquire(900).admitted()).isTrue();
        store.adjust(tenant, WINDOWS, d.nowMs(), -800, 0).block();
        List<WindowUsage> usage = store.peek(tenant, WINDOWS).block();
        assertThat(usage.get(0).usedTokens()).isEqualTo(900); // minute: the old slot is gone
        assertThat(usage.get(1).usedTokens()).isEqualTo(900); // hour: the refund lands
    }

    /**
     * A positive correction in a slot the store does not hold is charged there: it is how a fail-open
     * tenant's use during an outage reaches the shared windows as Redis answers again (the Redis
     * script once dropped it, and the tenant had a second full window after every outage).
     */
    @Test
    void aPositiveCorrectionWhereNothingWasChargedIsChargedANegativeOneChangesNothing() {
        at(30_000);
        store.adjust(tenant, WINDOWS, clock.millis(), -50, -1).block();
        assertThat(store.peek(tenant, WINDOWS).block()).allMatch(w -> w.usedTokens() == 0 && w.usedRequests() == 0);
        store.adjust(tenant, WINDOWS, clock.millis(), 600, 3).block();
        assertThat(store.peek(tenant, WINDOWS).block())
                .extracting(WindowUsage::usedTokens, WindowUsage::usedRequests)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(600L, 3L));
        assertThat(acquire(401).admitted()).as("the minute holds 600 of 1,000").isFalse();
        assertThat(acquire(400).admitted()).isTrue();
        at(91_000); // the handed-over slot leaves the minute as a charged one would
        assertThat(store.peek(tenant, WINDOWS).block().get(0).usedTokens()).isEqualTo(0);
        assertThat(store.peek(tenant, WINDOWS).block().get(1).usedTokens()).isEqualTo(1_000);
    }

    @Test
    void resetTellsWhenTheNewestUsageLeaves() {
        acquire(10);
        at(30_000);
        QuotaDecision d = acquire(10);
        assertThat(d.windows().get(0).resetMs()).isEqualTo(61_000); // slot [30 s, 31 s) leaves at 91 s
        assertThat(d.windows().get(1).resetMs()).isEqualTo(3_660_000 - 30_000);
    }

    /**
     * Concurrent admissions from many threads: the atomic check-and-charge admits exactly the
     * cap, never more (a check-then-increment in two steps would overspend here).
     */
    @Test
    void concurrentAdmissionsNeverOverspend() {
        WindowLimit minute = new WindowLimit("minute", 60, 5_000, 100_000);
        AtomicLong admitted = new AtomicLong();
        Flux.range(0, 400)
                .parallel(8)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.acquire(tenant, List.of(minute), 37, 1))
                .filter(QuotaDecision::admitted)
                .doOnNext(d -> admitted.addAndGet(37))
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        assertThat(admitted.get()).isEqualTo(5_000 / 37 * 37);
        assertThat(store.peek(tenant, List.of(minute)).block().get(0).usedTokens())
                .isEqualTo(admitted.get());
    }

    /**
     * The property of DESIGN.md section 3: over random arrivals and sizes, with random refunds,
     * no 60 s window (any start, not minute boundaries) holds more than the cap of net charged
     * tokens. The design allows no overshoot: a slot counts until it has wholly left the window.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234, 98765, 31337, 777})
    void noSixtySecondWindowEverHoldsMoreThanTheCap(long seed) {
        Random random = new Random(seed);
        WindowLimit minute = new WindowLimit("minute", 60, 10_000, 1_000);
        List<long[]> charges = new ArrayList<>(); // {time, net tokens}
        long t = random.nextInt(60_000);
        for (int i = 0; i < 600; i++) {
            t += random.nextInt(random.nextInt(10) == 0 ? 20_000 : 700);
            clock.set(T0 + t);
            long tokens = 1 + random.nextInt(random.nextBoolean() ? 400 : 3_000);
            QuotaDecision d = store.acquire(tenant, List.of(minute), tokens, 1).block();
            if (!d.admitted()) {
                assertThat(d.retryAfterMs()).isPositive();
                continue;
            }
            long refund = random.nextInt(3) == 0 ? random.nextInt((int) tokens) : 0;
            if (refund > 0)
                store.adjust(tenant, List.of(minute), d.nowMs(), -refund, 0).block();
            charges.add(new long[] {d.nowMs(), tokens - refund});
        }
        assertThat(charges).hasSizeGreaterThan(100);
        // The sum over any window is largest for a window ending at an admission.
        for (long[] end : charges) {
            long sum = charges.stream()
                    .filter(c -> c[0] > end[0] - 60_000 && c[0] <= end[0])
                    .mapToLong(c -> c[1])
                    .sum();
            assertThat(sum).as("tokens in the 60 s ending at %d", end[0] - T0).isLessThanOrEqualTo(10_000);
        }
    }

    @Test
    void tenantsAreIndependent() {
        assertThat(acquire(1000).admitted()).isTrue();
        assertThat(store.acquire("other-" + tenant, WINDOWS, 1000, 1).block().admitted())
                .isTrue();
        IntStream.range(0, 3).forEach(i -> assertThat(acquire(1).admitted()).isFalse());
    }

    // --- spend budgets: a calendar counter per period, charged in the same step as the windows ---

    /** USD 0.01 a day (10,000 micro-dollars) and 0.05 a month, in UTC. */
    static final SpendBudget CENTS = new SpendBudget(10_000, 50_000, ZoneOffset.UTC);

    List<SpendLimit> spends() {
        return SpendLimit.of(CENTS, clock.millis());
    }

    QuotaDecision spend(long tokens, long costMicros) {
        return store.acquire(tenant, WINDOWS, spends(), tokens, 1, costMicros).block(Duration.ofSeconds(5));
    }

    long spentToday() {
        return store.peek(tenant, WINDOWS, spends()).block().spends().get(0).usedMicros();
    }

    /** The same for money: an outage's spend handed over makes the period's counter; a refund alone makes none. */
    @Test
    void aPositiveCostCorrectionWhereNoCounterIsKeptMakesItANegativeOneDoesNot() {
        store.adjust(tenant, List.of(), spends(), clock.millis(), 0, 0, -3_000).block();
        assertThat(spentToday()).isZero();
        store.adjust(tenant, List.of(), spends(), clock.millis(), 0, 0, 7_000).block();
        assertThat(spentToday()).isEqualTo(7_000);
        assertThat(spend(10, 3_001).admitted()).as("7,000 of 10,000 spent").isFalse();
        assertThat(spend(10, 3_000).admitted()).isTrue();
        store.adjust(tenant, List.of(), spends(), clock.millis(), 0, 0, -20_000).block();
        assertThat(spentToday()).isZero();
    }

    @Test
    void aSpendBudgetAdmitsUpToItsCapThenRefusesUntilThePeriodTurnsAndChargesNothingElse() {
        QuotaDecision first = spend(100, 6_000);
        assertThat(first.admitted()).isTrue();
        assertThat(first.spends())
                .extracting(SpendUsage::name, SpendUsage::usedMicros)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "spend:day:"
                                        + CalendarPeriod.day(T0, ZoneOffset.UTC).label(),
                                6_000L),
                        org.assertj.core.groups.Tuple.tuple(
                                "spend:month:"
                                        + CalendarPeriod.month(T0, ZoneOffset.UTC)
                                                .label(),
                                6_000L));
        assertThat(first.utilisation()).isEqualTo(0.6);
        at(5_000);
        assertThat(spend(100, 4_000).admitted()).as("exactly the cap").isTrue();

        at(10_000);
        QuotaDecision refused = spend(1, 1);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.blocking()).startsWith("spend:day:");
        long midnight = CalendarPeriod.day(clock.millis(), ZoneOffset.UTC).endMs();
        assertThat(refused.retryAfterMs()).as("until the day turns").isEqualTo(midnight - clock.millis());
        assertThat(refused.blockingSpend().remainingMicros()).isZero();
        assertThat(store.peek(tenant, WINDOWS).block())
                .as("the refusal charged no window")
                .extracting(WindowUsage::usedTokens)
                .containsExactly(200L, 200L);

        clock.set(midnight - 1);
        assertThat(spend(1, 1).admitted()).isFalse();
        clock.set(midnight);
        QuotaDecision nextDay = spend(1, 5_000);
        assertThat(nextDay.admitted()).as("a new day, a new counter").isTrue();
        assertThat(nextDay.spends().get(0).usedMicros()).isEqualTo(5_000);
        assertThat(nextDay.spends().get(1).usedMicros()).as("the month goes on").isEqualTo(15_000);
    }

    @Test
    void aWindowThatRefusesChargesNoSpendAndASpendThatRefusesNoWindow() {
        assertThat(spend(1000, 1_000).admitted()).isTrue();
        QuotaDecision byWindow = spend(1, 1_000);
        assertThat(byWindow.admitted()).isFalse();
        assertThat(byWindow.blocking()).isEqualTo("minute");
        assertThat(spentToday()).isEqualTo(1_000);
    }

    @Test
    void aCostAboveTheWholeBudgetNeverFits() {
        QuotaDecision d = spend(1, 10_001);
        assertThat(d.admitted()).isFalse();
        assertThat(d.retryAfterMs()).isEqualTo(-1);
        assertThat(d.blocking()).startsWith("spend:day:");
        QuotaDecision huge = spend(1, Long.MAX_VALUE);
        assertThat(huge.retryAfterMs()).isEqualTo(-1);
        assertThat(spentToday()).isZero();
        assertThatThrownBy(() -> spend(1, -1)).isNotNull();
        assertThat(spentToday()).isZero();
    }

    @Test
    void aSettlementCorrectsTheCostInThePeriodItWasChargedInAndARefundGivesItBack() {
        QuotaDecision d = spend(100, 8_000);
        List<SpendLimit> charged = spends();
        store.adjust(tenant, WINDOWS, charged, d.nowMs(), -50, 0, -5_000).block();
        assertThat(spentToday()).isEqualTo(3_000);
        assertThat(store.peek(tenant, WINDOWS).block().get(0).usedTokens()).isEqualTo(50);
        store.adjust(tenant, WINDOWS, charged, d.nowMs(), -50, -1, -3_000).block();
        assertThat(spentToday()).isZero();

        // A call that straddles midnight settles into yesterday's counter, not today's.
        QuotaDecision late = spend(10, 2_000);
        clock.set(CalendarPeriod.day(clock.millis(), ZoneOffset.UTC).endMs() + 1_000);
        store.adjust(tenant, List.of(), charged, late.nowMs(), 0, 0, 3_000).block();
        assertThat(spentToday()).as("the new day").isZero();
        assertThat(store.peek(tenant, WINDOWS, charged).block().spends().get(0).usedMicros())
                .as("yesterday's, corrected")
                .isEqualTo(5_000);
    }

    @Test
    void spendCorrectionsSaturateAtTheEdgesInsteadOfWrapping() {
        QuotaDecision d = spend(1, 1);
        List<SpendLimit> charged = spends();
        store.adjust(tenant, List.of(), charged, d.nowMs(), 0, 0, Long.MAX_VALUE)
                .block();
        assertThat(spentToday()).isEqualTo(Money.MAX_MICROS);
        store.adjust(tenant, List.of(), charged, d.nowMs(), 0, 0, Long.MAX_VALUE)
                .block();
        assertThat(spentToday()).isEqualTo(Money.MAX_MICROS);
        assertThat(spend(0, 0).admitted())
                .as("a free request still fits a spent budget")
                .isTrue();
        store.adjust(tenant, List.of(), charged, d.nowMs(), 0, 0, Long.MIN_VALUE)
                .block();
        assertThat(spentToday()).isZero();
        store.adjust(tenant, List.of(), charged, d.nowMs(), 0, 0, -1).block();
        assertThat(spentToday()).as("never below zero").isZero();
    }

    /** 50 requests at once at a budget's edge: the atomic step admits exactly what fits, never one more. */
    @Test
    void concurrentSpendNeverOverspendsItsBudget() {
        SpendBudget budget = new SpendBudget(10_000, 0, ZoneOffset.UTC);
        List<SpendLimit> day = SpendLimit.of(budget, clock.millis());
        WindowLimit wide = new WindowLimit("minute", 60, 1_000_000, 100_000);
        AtomicLong admitted = new AtomicLong();
        Flux.range(0, 50)
                .parallel(8)
                .runOn(Schedulers.parallel())
                .flatMap(i -> store.acquire(tenant, List.of(wide), day, 10, 1, 333))
                .filter(QuotaDecision::admitted)
                .doOnNext(d -> admitted.addAndGet(333))
                .sequential()
                .blockLast(Duration.ofSeconds(30));
        assertThat(admitted.get()).isEqualTo(10_000 / 333 * 333);
        assertThat(store.peek(tenant, List.of(wide), day)
                        .block()
                        .spends()
                        .get(0)
                        .usedMicros())
                .isEqualTo(admitted.get());
    }
}
