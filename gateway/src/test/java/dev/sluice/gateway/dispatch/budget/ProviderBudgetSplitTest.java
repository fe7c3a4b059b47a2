package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.quota.SlidingWindow;
import org.junit.jupiter.api.Test;

/**
 * The pure core with a provider that meters input and output apart (Anthropic's ITPM and OTPM):
 * the prompt in an input window, max_tokens reserved in an output window and settled to what was
 * written, all or nothing with requests, tokens and slots. Time is an argument.
 */
class ProviderBudgetSplitTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    /** No total published: only the split limits cap tokens. */
    static final BudgetLimits SPLIT = new BudgetLimits(100, Long.MAX_VALUE, 50, 120_000, 10_000, 1_000);

    final ProviderBudget budget = new ProviderBudget();
    int leases;

    BudgetDecision acquire(BudgetLimits limits, long input, long output, long at) {
        return budget.tryAcquire(
                limits, new Acquire(Amounts.call(input + output, input, output), "l" + ++leases, true), T0 + at);
    }

    @Test
    void theOutputWindowRefusesWhatMaxTokensWouldOverrunAndSaysWhenItFits() {
        assertThat(acquire(SPLIT, 100, 600, 0).admitted()).isTrue();
        BudgetDecision d = acquire(SPLIT, 100, 600, 5_000);
        assertThat(d.admitted()).isFalse();
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        // The first reservation leaves the window with its slot, 61 s after it was made.
        assertThat(d.waitMs()).isEqualTo(61_000 - 5_000);
        assertThat(d.snapshot().usedOutputTokens()).isEqualTo(600);
        assertThat(d.snapshot().usedInputTokens()).isEqualTo(100);
        assertThat(d.snapshot().usedRequests()).as("a refusal takes nothing").isEqualTo(1);
        assertThat(d.snapshot().inFlight()).isEqualTo(1);
        assertThat(acquire(SPLIT, 100, 600, 61_000).admitted()).isTrue();
    }

    @Test
    void theInputWindowRefusesAPromptThatWouldOverrunIt() {
        assertThat(acquire(SPLIT, 9_000, 10, 0).admitted()).isTrue();
        BudgetDecision d = acquire(SPLIT, 2_000, 10, 1_000);
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.INPUT_TOKENS);
        assertThat(d.waitMs()).isEqualTo(60_000);
        assertThat(d.snapshot().usedOutputTokens()).as("all or nothing").isEqualTo(10);
        assertThat(d.snapshot().usedTokens()).isEqualTo(9_010);
    }

    @Test
    void settlingTheOutputToWhatWasWrittenMakesRoomAtOnce() {
        BudgetDecision first = acquire(SPLIT, 100, 900, 0);
        assertThat(acquire(SPLIT, 100, 900, 2_000).refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        // The answer wrote 50 of the 900 reserved; its prompt counted 120 where 100 was charged.
        budget.adjust(T0 + 2_000, first.nowMs(), new AmountsDelta(0, 20, 20, 50 - 900));
        BudgetSnapshot s = budget.snapshot(SPLIT, T0 + 2_000);
        assertThat(s.usedOutputTokens()).isEqualTo(50);
        assertThat(s.usedInputTokens()).isEqualTo(120);
        assertThat(s.usedTokens())
                .as("the total keeps prompt + max_tokens, as providers do")
                .isEqualTo(1_020);
        assertThat(acquire(SPLIT, 100, 900, 2_000).admitted()).isTrue();
    }

    @Test
    void maxTokensLargerThanTheOutputLimitNeverFitsAndTakesNothing() {
        for (long huge : new long[] {1_001, 1L << 53, SlidingWindow.MAX_AMOUNT, Long.MAX_VALUE}) {
            // The dispatcher charges the total at most its cap (SlidingWindow.MAX_AMOUNT without one).
            long total = Math.min(SlidingWindow.MAX_AMOUNT, 10 + Math.min(huge, SlidingWindow.MAX_AMOUNT));
            BudgetDecision d = budget.tryAcquire(SPLIT, new Acquire(Amounts.call(total, 10, huge), "huge", true), T0);
            assertThat(d.refusal()).as("max_tokens " + huge).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
            assertThat(d.neverFits()).isTrue();
            assertThat(d.snapshot().usedRequests()).isZero();
            assertThat(d.snapshot().usedOutputTokens()).isZero();
        }
        BudgetDecision d =
                budget.tryAcquire(SPLIT, new Acquire(Amounts.call(10_010, 10_001, 9), "long prompt", true), T0);
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.INPUT_TOKENS);
        assertThat(d.neverFits()).isTrue();
    }

    @Test
    void zeroMaxTokensFitsAFullOutputWindow() {
        assertThat(acquire(SPLIT, 10, 1_000, 0).admitted()).isTrue();
        assertThat(acquire(SPLIT, 10, 1, 100).refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        BudgetDecision embedding = acquire(SPLIT, 10, 0, 200);
        assertThat(embedding.admitted()).isTrue();
        assertThat(embedding.snapshot().usedOutputTokens()).isEqualTo(1_000);
    }

    @Test
    void whenTheTotalAndTheOutputBothBlockTheOneThatFreesLastIsNamed() {
        BudgetLimits both = new BudgetLimits(100, 2_000, 50, 120_000, 0, 1_000);
        assertThat(acquire(both, 900, 100, 0).admitted()).isTrue(); // total 1,000, output 100
        assertThat(acquire(both, 100, 800, 10_000).admitted()).isTrue(); // total 1,900, output 900
        // 300 more output: the output has room once the second charge leaves (71 s), the total at 61 s.
        BudgetDecision d = acquire(both, 0, 300, 20_000);
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        assertThat(d.waitMs()).isEqualTo(71_000 - 20_000);
    }

    @Test
    void withoutTheSplitTheInputAndOutputAreNotCountedAtAll() {
        BudgetLimits plain = new BudgetLimits(100, 20_000, 50, 120_000);
        BudgetDecision d = acquire(plain, 5_000, 5_000, 0);
        assertThat(d.admitted()).isTrue();
        assertThat(d.snapshot().usedInputTokens()).isZero();
        assertThat(d.snapshot().usedOutputTokens()).isZero();
        ProviderBudget twin = new ProviderBudget();
        assertThat(twin.tryAcquire(plain, Acquire.of(10_000, "l1"), T0))
                .as("the same as a budget that never heard of them")
                .isEqualTo(d);
    }

    @Test
    void anAdjustmentSaturatesInTheSplitWindowsToo() {
        BudgetDecision d = acquire(SPLIT, 100, 100, 0);
        budget.adjust(T0, d.nowMs(), new AmountsDelta(0, 0, Long.MIN_VALUE, Long.MAX_VALUE));
        BudgetSnapshot s = budget.snapshot(SPLIT, T0);
        assertThat(s.usedInputTokens()).isZero();
        assertThat(s.usedOutputTokens()).isEqualTo(SlidingWindow.MAX_AMOUNT);
        assertThat(acquire(SPLIT, 1, 1, 0).refusal()).isEqualTo(BudgetRefusal.OUTPUT_TOKENS);
        assertThat(budget.isIdle(T0 + 120_000))
                .as("gone with the window and the lease")
                .isTrue();
    }
}
