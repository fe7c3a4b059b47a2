package dev.sluice.gateway.accuracy;

import static dev.sluice.gateway.accuracy.RefusalVerdicts.Verdict.NECESSARY;
import static dev.sluice.gateway.accuracy.RefusalVerdicts.Verdict.UNDECIDED;
import static dev.sluice.gateway.accuracy.RefusalVerdicts.Verdict.UNNECESSARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.accuracy.RefusalVerdicts.Decided;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefusalVerdictsTest {
    final RefusalVerdicts verdicts = new RefusalVerdicts();
    final Object a = new Object();
    final Object b = new Object();

    @Test
    void aRefusalWithNothingInFlightIsNecessaryAtOnce() {
        assertThat(verdicts.refused("t", "free", 100, 60_000, 0)).containsExactly(new Decided("free", NECESSARY));
        assertThat(verdicts.pending()).isZero();
    }

    @Test
    void itIsUnnecessaryWhenTheCallsInItsWindowGaveBackAtLeastTheShortfall() {
        verdicts.opened("t", a, 1_000, 0);
        verdicts.opened("t", b, 1_000, 10);
        assertThat(verdicts.refused("t", "free", 700, 60_000, 20)).isEmpty();
        assertThat(verdicts.settled("t", a, 600))
                .as("400 back of 700: b still out")
                .isEmpty();
        assertThat(verdicts.settled("t", b, 700)).containsExactly(new Decided("free", UNNECESSARY));
        assertThat(verdicts.pending()).isZero();
    }

    @Test
    void itIsNecessaryWhenTheyGaveBackLess() {
        verdicts.opened("t", a, 1_000, 0);
        verdicts.refused("t", "pro", 500, 60_000, 5);
        assertThat(verdicts.settled("t", a, 501)).containsExactly(new Decided("pro", NECESSARY));
    }

    @Test
    void aRefundGivesBackTheWholeReservation() {
        verdicts.opened("t", a, 300, 0);
        verdicts.refused("t", "free", 300, 60_000, 1);
        assertThat(verdicts.settled("t", a, 0)).containsExactly(new Decided("free", UNNECESSARY));
    }

    @Test
    void aCallThatUsedMoreThanItReservedGivesNothingBack() {
        verdicts.opened("t", a, 100, 0);
        verdicts.refused("t", "free", 1, 60_000, 1);
        assertThat(verdicts.settled("t", a, 5_000)).containsExactly(new Decided("free", NECESSARY));
    }

    @Test
    void onlyReservationsInTheRefusedWindowCount() {
        verdicts.opened("t", a, 10_000, 0); // charged 61 s before the refusal: outside a minute window
        assertThat(verdicts.refused("t", "free", 10, 60_000, 61_000)).containsExactly(new Decided("free", NECESSARY));
        verdicts.opened("t", b, 10_000, 61_000);
        verdicts.refused("t", "free", 10, 86_400_000, 62_000); // a day window holds both
        assertThat(verdicts.settled("t", a, 0)).isEmpty();
        assertThat(verdicts.settled("t", b, 0)).containsExactly(new Decided("free", UNNECESSARY));
    }

    @Test
    void otherTenantsReservationsDoNotCount() {
        verdicts.opened("other", a, 10_000, 0);
        assertThat(verdicts.refused("t", "free", 10, 60_000, 1)).containsExactly(new Decided("free", NECESSARY));
        assertThat(verdicts.settled("other", a, 0)).isEmpty();
    }

    @Test
    void oneSettlementDecidesEveryRefusalWaitingOnIt() {
        verdicts.opened("t", a, 1_000, 0);
        verdicts.refused("t", "free", 900, 60_000, 1);
        verdicts.refused("t", "free", 1_200, 60_000, 2);
        assertThat(verdicts.settled("t", a, 0))
                .containsExactly(new Decided("free", UNNECESSARY), new Decided("free", NECESSARY));
    }

    @Test
    void aSecondSettlementOrAnUnknownHandleIsIgnored() {
        verdicts.opened("t", a, 1_000, 0);
        verdicts.refused("t", "free", 10, 60_000, 1);
        assertThat(verdicts.settled("t", a, 0)).hasSize(1);
        assertThat(verdicts.settled("t", a, 0)).isEmpty();
        assertThat(verdicts.settled("t", b, 0)).isEmpty();
        assertThat(verdicts.settled("nobody", b, 0)).isEmpty();
    }

    @Test
    void memoryIsBoundedPerTenantAndByAge() {
        verdicts.opened("t", a, 1_000, 0);
        List<Decided> given = new ArrayList<>();
        for (int i = 0; i < RefusalVerdicts.MAX_PENDING + 5; i++)
            given.addAll(verdicts.refused("t", "free", 10, 60_000, 1));
        assertThat(given).hasSize(5).allMatch(d -> d.verdict() == UNDECIDED);
        assertThat(verdicts.pending()).isEqualTo(RefusalVerdicts.MAX_PENDING);
        assertThat(verdicts.expire(RefusalVerdicts.GIVE_UP_MS)).as("not yet").isEmpty();
        assertThat(verdicts.expire(1 + RefusalVerdicts.GIVE_UP_MS)).hasSize(RefusalVerdicts.MAX_PENDING);
        assertThat(verdicts.pending()).isZero();
        assertThat(verdicts.settled("t", a, 0))
                .as("given up: no second verdict")
                .isEmpty();
    }

    @Test
    void extremeAmountsSaturate() {
        verdicts.opened("t", a, Long.MAX_VALUE, 0);
        verdicts.opened("t", b, Long.MAX_VALUE, 0);
        verdicts.refused("t", "free", Long.MAX_VALUE, 60_000, 1);
        verdicts.settled("t", a, 0);
        assertThat(verdicts.settled("t", b, 0)).containsExactly(new Decided("free", UNNECESSARY));
        verdicts.opened("t", a, -5, 0);
        verdicts.refused("t", "free", 0, 60_000, 1);
        assertThat(verdicts.settled("t", a, -1)).containsExactly(new Decided("free", NECESSARY));
    }
}
