package dev.sluice.gateway.dispatch.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.dispatch.health.ProviderHealth.State;
import org.junit.jupiter.api.Test;

/** The provider's circuit, on explicit times. */
class ProviderHealthTest {
    final ProviderHealth health = new ProviderHealth(new ProviderHealth.Settings(3, 1_000, 4_000, 5_000));

    @Test
    void threeFailuresInARowOpenItAndTheCooldownBlocksEveryCall() {
        assertThat(health.failed(0)).isFalse();
        assertThat(health.failed(10)).isFalse();
        assertThat(health.blockedForMs(10)).isZero();
        assertThat(health.failed(20)).as("the third opens it, once").isTrue();

        assertThat(health.state()).isEqualTo(State.OPEN);
        assertThat(health.blockedForMs(20)).isEqualTo(1_000);
        assertThat(health.blockedForMs(520)).isEqualTo(500);
        assertThat(health.tryStart(1_019)).isFalse();
        assertThat(health.failed(30))
                .as("calls sent before it opened fail too: the period stands")
                .isFalse();
        assertThat(health.blockedForMs(30)).isEqualTo(990);
    }

    @Test
    void anAnswerBetweenFailuresStartsTheCountAgain() {
        health.failed(0);
        health.failed(1);
        assertThat(health.answered()).as("it was closed: nothing to reopen").isFalse();
        health.failed(2);
        health.failed(3);
        assertThat(health.state()).isEqualTo(State.CLOSED);
        assertThat(health.failed(4)).isTrue();
    }

    @Test
    void aCallKnowsWhetherItIsTheProbe() {
        assertThat(health.startsAsProbe(0)).as("closed: an ordinary call").isFalse();
        open(0);
        assertThat(health.startsAsProbe(1_000))
                .as("the first call past the open period")
                .isTrue();
        assertThat(health.state()).isEqualTo(State.PROBING);
        assertThat(health.startsAsProbe(1_001))
                .as("the others may not start, let alone probe")
                .isFalse();
    }

    @Test
    void afterTheCooldownOneCallProbesAndItsAnswerClosesTheCircuit() {
        open(0);
        assertThat(health.tryStart(1_000)).as("the probe").isTrue();
        assertThat(health.state()).isEqualTo(State.PROBING);
        assertThat(health.tryStart(1_001)).as("the others wait for the probe").isFalse();
        assertThat(health.blockedForMs(1_001)).isEqualTo(4_999);

        assertThat(health.answered()).as("closed by the probe's answer").isTrue();
        assertThat(health.state()).isEqualTo(State.CLOSED);
        assertThat(health.tryStart(1_100)).isTrue();
        assertThat(health.blockedForMs(1_100)).isZero();
    }

    @Test
    void eachFailedProbeDoublesTheCooldownUpToItsMaximumAndAnAnswerResetsIt() {
        open(0);
        long at = 1_000;
        long[] periods = {2_000, 4_000, 4_000};
        for (long period : periods) {
            assertThat(health.tryStart(at)).isTrue();
            assertThat(health.failed(at))
                    .as("a failed probe reopens it: what waits behind the probe goes elsewhere")
                    .isTrue();
            assertThat(health.blockedForMs(at)).isEqualTo(period);
            at += period;
        }
        assertThat(health.tryStart(at)).isTrue();
        health.answered();
        open(at);
        assertThat(health.blockedForMs(at)).as("back to the first period").isEqualTo(1_000);
    }

    @Test
    void aProbeThatNeverReportsLetsTheNextGoAfterItsTimeout() {
        open(0);
        assertThat(health.tryStart(1_000)).isTrue();
        assertThat(health.tryStart(5_999)).isFalse();
        assertThat(health.tryStart(6_000))
                .as("the first probe's client left: another probes")
                .isTrue();
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> new ProviderHealth.Settings(0, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ProviderHealth.Settings(1, 10, 5, 1)).isInstanceOf(IllegalArgumentException.class);
        ProviderHealth huge =
                new ProviderHealth(new ProviderHealth.Settings(1, Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE, 1));
        huge.failed(0);
        huge.tryStart(Long.MAX_VALUE);
        huge.failed(0);
        assertThat(huge.blockedForMs(0)).as("doubling saturates").isEqualTo(Long.MAX_VALUE);
    }

    private void open(long at) {
        health.failed(at);
        health.failed(at);
        assertThat(health.failed(at)).isTrue();
    }
}
