package dev.sluice.gateway.dispatch.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.gateway.dispatch.calibration.TokenCalibration.Settings;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration.State;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure core: how the provider's count per estimated token is learned, bounded and combined. */
class TokenCalibrationTest {
    private static final Settings S = new Settings(1.0, 0.5, 2.0, 5, 0.1);

    private static State feed(State s, long estimated, long counted, int times) {
        for (int i = 0; i < times; i++) s = TokenCalibration.observe(s, S, estimated, counted);
        return s;
    }

    @Test
    void beforeAnyAnswerTheRatioIsTheConfiguredDefault() {
        assertThat(S.initial()).isEqualTo(new State(1.0, 0));
        assertThat(TokenCalibration.combine(List.of(S.initial()), S)).isEqualTo(1.0);
        assertThat(TokenCalibration.combine(List.of(), new Settings(1.2, 0.5, 2.0, 5, 0.1)))
                .isEqualTo(1.2);
    }

    @Test
    void theFirstAnswerSetsTheRatioAtOnceAndTheFirstFewArePlainlyAveraged() {
        State one = TokenCalibration.observe(S.initial(), S, 1000, 1150);
        assertThat(one.ratio()).isCloseTo(1.15, within(1e-9)); // fast start: the default weighs nothing
        assertThat(one.samples()).isEqualTo(1);
        State two = TokenCalibration.observe(one, S, 1000, 1250);
        assertThat(two.ratio()).isCloseTo(1.20, within(1e-9)); // (1.15 + 1.25) / 2
        State five = feed(two, 1000, 1000, 3);
        assertThat(five.ratio()).isCloseTo((1.15 + 1.25 + 3) / 5, within(1e-9));
    }

    @Test
    void afterTheFastStartOneOddAnswerMovesItOnlyBySmoothing() {
        State settled = feed(S.initial(), 1000, 1100, 5);
        assertThat(settled.ratio()).isCloseTo(1.10, within(1e-9));
        State odd = TokenCalibration.observe(settled, S, 1000, 1600);
        assertThat(odd.ratio()).isCloseTo(1.10 + 0.1 * (1.60 - 1.10), within(1e-9));
        // A lasting change is followed, geometrically.
        State followed = feed(odd, 1000, 900, 60);
        assertThat(followed.ratio()).isCloseTo(0.90, within(0.01));
    }

    @Test
    void theRatioStaysWithinItsBounds() {
        assertThat(feed(S.initial(), 100, 900, 50).ratio()).isEqualTo(2.0); // 9x: plausible, bounded
        assertThat(feed(S.initial(), 900, 100, 50).ratio()).isEqualTo(0.5);
        assertThat(TokenCalibration.combine(List.of(new State(7.0, 3)), S)).isEqualTo(2.0);
    }

    @Test
    void garbageUsageIsIgnored() {
        State s = feed(S.initial(), 1000, 1150, 2);
        assertThat(TokenCalibration.observe(s, S, 1000, 0)).isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, 1000, -5)).isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, 0, 1000)).isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, -1, 1000)).isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, 10, 1_000_000))
                .as("absurd: 100,000x")
                .isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, 1_000_000, 1)).isSameAs(s);
        assertThat(TokenCalibration.observe(s, S, Long.MAX_VALUE, Long.MAX_VALUE)
                        .ratio())
                .isCloseTo((1.15 * 2 + 1.0) / 3, within(1e-9)); // huge but consistent: a ratio of 1, no overflow
    }

    @Test
    void replicasCombineWeightedBySamples() {
        double r = TokenCalibration.combine(List.of(new State(1.2, 30), new State(1.0, 10), S.initial()), S);
        assertThat(r).isCloseTo(1.15, within(1e-9));
        assertThat(TokenCalibration.combine(List.of(new State(Double.NaN, 5), new State(1.1, 1)), S))
                .isCloseTo(1.1, within(1e-9));
        assertThat(TokenCalibration.combine(List.of(new State(1.2, Long.MAX_VALUE), new State(0.8, Long.MAX_VALUE)), S))
                .isCloseTo(1.0, within(1e-9));
    }

    @Test
    void theChargeIsTheCalibratedPromptRoundedUpAndTheWholeOutputSaturating() {
        assertThat(TokenCalibration.charge(1000, 200, 1.15)).isEqualTo(1150 + 200);
        assertThat(TokenCalibration.charge(1001, 0, 1.15)).isEqualTo(1152); // 1151.15 rounded up
        assertThat(TokenCalibration.charge(100, 50, 1.0)).isEqualTo(150);
        assertThat(TokenCalibration.charge(Long.MAX_VALUE, 10, 2.0)).isEqualTo(Long.MAX_VALUE);
        assertThat(TokenCalibration.charge(10, Long.MAX_VALUE, 1.5)).isEqualTo(Long.MAX_VALUE);
        assertThat(TokenCalibration.charge(-5, 10, 1.5)).isEqualTo(10);
    }

    @Test
    void settingsAreValidatedWhenBuilt() {
        assertThatThrownBy(() -> new Settings(1.0, 0, 2.0, 5, 0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1.0, 1.5, 1.2, 5, 0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(3.0, 0.5, 2.0, 5, 0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(Double.NaN, 0.5, 2.0, 5, 0.1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1.0, 0.5, 2.0, 0, 0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1.0, 0.5, 2.0, 5, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1.0, 0.5, Double.POSITIVE_INFINITY, 5, 0.5))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
