package dev.sluice.gateway.dispatch.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.dispatch.health.AimdLimit.Outcome;
import dev.sluice.gateway.dispatch.health.AimdLimit.Settings;
import org.junit.jupiter.api.Test;

class AimdLimitTest {
    static final long T0 = 1_000_000;
    // initial 100, floor 10, ceiling 190, +1, ×0.7, 5 samples, 1 s intervals
    final AimdLimit aimd = new AimdLimit(new Settings(100, 10, 190, 1, 0.7, 5, 1_000));

    /** {@code n} outcomes spread over the interval starting at {@code startMs}, with the limit fully in use. */
    void interval(long startMs, int n, Outcome outcome) {
        for (int i = 0; i < n; i++) aimd.onSample(startMs + i * (900L / n), outcome, aimd.limit());
    }

    @Test
    void creepsUpOneStepPerCleanInterval() {
        for (int k = 0; k < 5; k++) interval(T0 + k * 1_000L, 20, Outcome.SUCCESS);
        aimd.tick(T0 + 5_000);
        assertThat(aimd.limit()).isEqualTo(105);
    }

    @Test
    void backsOffMultiplicativelyOnOverload() {
        interval(T0, 20, Outcome.SUCCESS);
        aimd.onSample(T0 + 950, Outcome.OVERLOAD, 100);
        aimd.tick(T0 + 1_000);
        assertThat(aimd.limit()).isEqualTo(70);
        interval(T0 + 1_000, 10, Outcome.SUCCESS);
        aimd.onSample(T0 + 1_950, Outcome.TIMEOUT, 70);
        aimd.tick(T0 + 2_000);
        assertThat(aimd.limit()).isEqualTo(49);
        interval(T0 + 2_000, 10, Outcome.RATE_LIMITED);
        aimd.tick(T0 + 3_000);
        assertThat(aimd.limit()).isEqualTo(34);
    }

    @Test
    void neverGoesBelowTheFloor() {
        for (int k = 0; k < 30; k++) interval(T0 + k * 1_000L, 10, Outcome.OVERLOAD);
        aimd.tick(T0 + 30_000);
        assertThat(aimd.limit()).isEqualTo(10);
    }

    @Test
    void neverGoesAboveTheCeiling() {
        for (int k = 0; k < 200; k++) interval(T0 + k * 1_000L, 10, Outcome.SUCCESS);
        aimd.tick(T0 + 200_000);
        assertThat(aimd.limit()).isEqualTo(190);
    }

    @Test
    void ignoresASingleBlipBelowTheMinimumSamples() {
        aimd.onSample(T0, Outcome.TIMEOUT, 100);
        aimd.onSample(T0 + 10, Outcome.SUCCESS, 100);
        aimd.tick(T0 + 1_000);
        assertThat(aimd.limit()).isEqualTo(100);
        interval(T0 + 1_000, 20, Outcome.SUCCESS);
        aimd.tick(T0 + 2_000);
        assertThat(aimd.limit())
                .as("the blip was not carried into the next interval")
                .isEqualTo(101);
    }

    @Test
    void evaluatesOnlyOncePerInterval() {
        interval(T0, 500, Outcome.OVERLOAD);
        assertThat(aimd.limit()).as("nothing moves inside the interval").isEqualTo(100);
        aimd.onSample(T0 + 1_000, Outcome.OVERLOAD, 100);
        assertThat(aimd.limit()).as("one step for the whole interval").isEqualTo(70);
        aimd.tick(T0 + 1_500);
        assertThat(aimd.limit()).isEqualTo(70);
    }

    @Test
    void doesNotCreepUpWhileTheLimitIsNotInUse() {
        for (int k = 0; k < 10; k++) {
            for (int i = 0; i < 20; i++) aimd.onSample(T0 + k * 1_000L + i * 40, Outcome.SUCCESS, 30);
        }
        aimd.tick(T0 + 10_000);
        assertThat(aimd.limit()).isEqualTo(100);
    }

    /** Backs off once (a quick burst of push-back: 100 -> 70), then {@code intervals} clean ones of {@code answers} each. */
    int backOffThenClean(int answers, int intervals) {
        interval(T0, 10, Outcome.OVERLOAD);
        aimd.tick(T0 + 1_000);
        assertThat(aimd.limit()).isEqualTo(70);
        for (int k = 1; k <= intervals; k++) interval(T0 + k * 1_000L, answers, Outcome.SUCCESS);
        aimd.tick(T0 + (intervals + 1) * 1_000L);
        return aimd.limit();
    }

    @Test
    void recoversAdditivelyAfterBackingOff() {
        assertThat(backOffThenClean(10, 3)).isEqualTo(73);
    }

    @Test
    void aSlowProviderRecoversFromOutcomesCarriedAcrossIntervals() {
        // Calls so long that each interval sees two answers, the limit fully in use: every third interval has
        // gathered five clean ones and is judged (before, no interval ever had five: the limit stayed at 70).
        assertThat(backOffThenClean(2, 9)).isEqualTo(73);
    }

    @Test
    void cleanOutcomesAreCarriedForAMinuteAtMost() {
        interval(T0, 3, Outcome.SUCCESS);
        aimd.tick(T0 + 1_000);
        // 61 s later, three more: with the three of a minute ago they would make five, but those are too old.
        interval(T0 + 61_000, 3, Outcome.SUCCESS);
        aimd.tick(T0 + 62_000);
        assertThat(aimd.limit()).isEqualTo(100);
    }

    @Test
    void aSilentStretchStartsAFreshInterval() {
        aimd.onSample(T0, Outcome.SUCCESS, 100);
        // minutes later, a burst of overloads: judged in its own interval, once
        interval(T0 + 300_000, 10, Outcome.OVERLOAD);
        assertThat(aimd.limit()).isEqualTo(100);
        aimd.tick(T0 + 301_000);
        assertThat(aimd.limit()).isEqualTo(70);
    }

    @Test
    void refusesSettingsThatCannotHold() {
        assertThatThrownBy(() -> new Settings(5, 10, 190, 1, 0.7, 5, 1_000)).hasMessageContaining("floor");
        assertThatThrownBy(() -> new Settings(100, 10, 190, 1, 1.0, 5, 1_000)).hasMessageContaining("decrease");
        assertThat(Settings.startingAt(190)).isEqualTo(new Settings(190, 19, 190, 1, 0.7, 10, 1_000));
    }
}
