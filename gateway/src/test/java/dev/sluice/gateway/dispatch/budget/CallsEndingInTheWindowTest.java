package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.BudgetSnapshot.Leaving;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link BudgetSnapshot#callsEnding}: the other replicas' calls in flight dated by the window's
 * latest request charges (each slot's leaving time is its start plus the minute and the slot),
 * never sooner than an even spread over a mean call, and nothing made up where the window says
 * nothing.
 */
class CallsEndingInTheWindowTest {
    static final BudgetLimits LIMITS = new BudgetLimits(1_500, 300_000, 200, 60_000);
    static final long CYCLE = ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS;
    static final long NOW = 1_000_400; // 400 ms into the slot that began at 1,000,000

    static BudgetSnapshot window(Leaving... slots) {
        return BudgetSnapshot.empty(LIMITS, NOW).withLeaving(List.of(slots));
    }

    @Test
    void aBurstSentThisSecondEndsACallAfterTheMiddleOfWhatHasPassedOfIt() {
        BudgetSnapshot s = window(new Leaving(1_000_000 + CYCLE, 8_000, 10));
        // Sent, as far as the window can tell, at 1,000,200: a mean call of 2 s ends at 1,002,200, 1,800 ms from now.
        assertThat(s.callsEnding(4, 0, 2_000)).containsExactly(1_800L, 1_800L, 1_800L, 2_000L);
    }

    @Test
    void theLatestChargesAreTakenAndTheOthersSpreadAmongThemWithThisReplicasOwn() {
        BudgetSnapshot s = window(
                new Leaving(998_000 + CYCLE, 4_000, 4), // two seconds ago: ended by now, as far as a mean says
                new Leaving(1_000_000 + CYCLE, 4_000, 4));
        // Eight in flight, four of them this replica's: the latest eight charges, every other one.
        assertThat(s.callsEnding(4, 4, 2_000)).containsExactly(500L, 1_000L, 1_800L, 2_000L);
    }

    @Test
    void fewerWhenTheWindowHoldsFewerRequestsThanCallsInFlight() {
        BudgetSnapshot s = window(new Leaving(1_000_000 + CYCLE, 800, 2));
        assertThat(s.callsEnding(4, 4, 2_000))
                .as(
                        "two charges found of the eight wanted: a quarter of them stand for the others, the rest drain evenly")
                .hasSize(1);
    }

    @Test
    void nothingWithoutASchedule() {
        assertThat(BudgetSnapshot.empty(LIMITS, NOW).withLeaving(null).callsEnding(4, 0, 2_000))
                .isEmpty();
        assertThat(window().callsEnding(4, 0, 2_000)).isEmpty();
        assertThat(window(new Leaving(1_000_000 + CYCLE, 800, 2)).callsEnding(0, 3, 2_000))
                .isEmpty();
        assertThat(window(new Leaving(1_000_000 + CYCLE, 800, 2)).callsEnding(-1, 0, 2_000))
                .isEmpty();
    }

    @Test
    void aZeroMeanEndsEveryCallNowAndAHugeWindowIsReadOnlyAsFarAsNeeded() {
        assertThat(window(new Leaving(1_000_000 + CYCLE, 800, 2)).callsEnding(2, 0, 0))
                .containsExactly(0L, 0L);
        BudgetSnapshot huge = window(new Leaving(1_000_000 + CYCLE, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2));
        assertThat(huge.callsEnding(65_536, 0, 2_000))
                .hasSize(65_536)
                .allSatisfy(ms -> assertThat(ms).isBetween(0L, 2_000L));
    }
}
