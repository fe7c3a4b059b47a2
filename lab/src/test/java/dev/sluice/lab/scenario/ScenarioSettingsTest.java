package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioSettingsTest {

    @Test
    void theDefaultsAreSeed000() {
        ScenarioSettings s = ScenarioSettings.defaults();
        assertThat(s.limits().requestsPerMinute()).isEqualTo(1500);
        assertThat(s.limits().tokensPerMinute()).isEqualTo(300_000);
        assertThat(s.limits().maxInFlight()).isEqualTo(200);
        assertThat(s.limits().latency()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.caseOrder()).containsExactly(CaseId.values());
        assertThat(s.crowdUsers()).isEqualTo(3);
        assertThat(s.soloUsers()).isEqualTo(1);
        assertThat(s.perUserBucket()).isEqualTo(new PageLimiter.Shape(5, 2));
        assertThat(s.globalBucket()).isEqualTo(new PageLimiter.Shape(25, 25)); // 1500 a minute
        assertThat(s.poolConnections()).isEqualTo(200);
        assertThat(s.rampUsers()).containsExactly(1, 2, 3, 5, 8, 12, 20, 30, 50, 80);
        assertThat(s.steps()).isEqualTo(10);
    }

    @Test
    void optionsChangeWhatTheyNameAndTheGlobalBucketFollowsTheRequestsPerMinute() {
        ScenarioSettings s = ScenarioSettings.defaults().with(List.of("--cases=case4,CASE2", "--ramp=off", "--time-factor=20",
                "--users=5", "--rpm=600", "--upload-for=4.5", "--ramp-users=1,3,9", "", "--warm-up=0"));
        assertThat(s.caseOrder()).containsExactly(CaseId.CASE2, CaseId.CASE4);
        assertThat(s.ramp()).isFalse();
        assertThat(s.timeFactor()).isEqualTo(20);
        assertThat(s.crowdUsers()).isEqualTo(5);
        assertThat(s.uploadFor()).isEqualTo(Duration.ofMillis(4_500));
        assertThat(s.globalBucket()).isEqualTo(new PageLimiter.Shape(10, 10));
        assertThat(s.rampUsers()).containsExactly(1, 3, 9);
        assertThat(s.warmUpPages()).isZero();
        assertThat(s.steps()).isEqualTo(2);
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        ScenarioSettings d = ScenarioSettings.defaults();
        assertThatThrownBy(() -> d.with(List.of("--cases=case9"))).hasMessageContaining("unknown case 'case9'")
                .hasMessageContaining("case1, case2, case3, case4, case5");
        assertThatThrownBy(() -> d.with(List.of("--users=many"))).hasMessage("--users needs a number, got 'many'");
        assertThatThrownBy(() -> d.with(List.of("--colour=blue"))).hasMessageContaining("unknown option --colour");
        assertThatThrownBy(() -> d.with(List.of("users=3"))).hasMessageContaining("options are --name=value");
        assertThatThrownBy(() -> d.with(List.of("--ramp-users=1,3,2"))).hasMessageContaining("must grow at every step");
        assertThatThrownBy(() -> d.with(List.of("--time-factor=200"))).hasMessageContaining("between 1 and 100");
        // 2 s calls at ×200 would be 10 ms timers: the machine, not the provider.
        assertThatThrownBy(() -> d.with(List.of("--time-factor=100", "--latency-ms=1000")))
                .hasMessageContaining("under 20 real ms");
    }
}
