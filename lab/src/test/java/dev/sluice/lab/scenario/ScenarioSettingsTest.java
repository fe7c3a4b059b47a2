package dev.sluice.lab.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.lab.provider.PromptCount;
import dev.sluice.lab.provider.ProviderWays;
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
        ScenarioSettings s = ScenarioSettings.defaults()
                .with(List.of(
                        "--cases=case4,CASE2",
                        "--ramp=off",
                        "--time-factor=20",
                        "--users=5",
                        "--rpm=600",
                        "--upload-for=4.5",
                        "--ramp-users=1,3,9",
                        "",
                        "--warm-up=0"));
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
        assertThatThrownBy(() -> d.with(List.of("--cases=case9")))
                .hasMessageContaining("unknown case 'case9'")
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

    @Test
    void theProvidersWaysDefaultToTheEstimatorsAndTheGatewaysAndChangeByOption() {
        assertThat(ScenarioSettings.defaults().ways()).isEqualTo(ProviderWays.DEFAULT);
        ScenarioSettings s = ScenarioSettings.defaults()
                .with(List.of(
                        "--provider-count=chars:3.5",
                        "--count-factor=1.15",
                        "--tokens-per-message=7",
                        "--clock-offset=800ms",
                        "--extra-latency=0.3s",
                        "--itpm=200000",
                        "--otpm=60000"));
        assertThat(s.ways().promptCount()).isEqualTo(new PromptCount(PromptCount.Method.CHARS, 3.5, 1.15, 7));
        assertThat(s.ways().clockOffset()).isEqualTo(Duration.ofMillis(800));
        assertThat(s.ways().extraLatency()).isEqualTo(Duration.ofMillis(300));
        assertThat(s.limits().inputTokensPerMinute()).isEqualTo(200_000);
        assertThat(s.limits().outputTokensPerMinute()).isEqualTo(60_000);
        assertThat(s.limits().tokensPerMinute()).isEqualTo(300_000);

        assertThat(ScenarioSettings.defaults()
                        .with(List.of("--clock-offset=-1s"))
                        .ways()
                        .clockOffset())
                .isEqualTo(Duration.ofSeconds(-1));
        assertThat(ScenarioSettings.defaults()
                        .with(List.of("--count-factor=0.85", "--provider-count=bpe"))
                        .ways()
                        .promptCount())
                .isEqualTo(new PromptCount(PromptCount.Method.BPE, 4.0, 0.85, 4));
        assertThat(ScenarioSettings.defaults()
                        .with(List.of("--provider-count=chars"))
                        .ways()
                        .promptCount()
                        .charsPerToken())
                .isEqualTo(4.0);
    }

    @Test
    void badProviderWaysSayWhatIsWrong() {
        ScenarioSettings d = ScenarioSettings.defaults();
        assertThatThrownBy(() -> d.with(List.of("--provider-count=words")))
                .hasMessageContaining("prompt count is bpe or chars");
        assertThatThrownBy(() -> d.with(List.of("--provider-count=bpe:4"))).hasMessageContaining("only with chars");
        assertThatThrownBy(() -> d.with(List.of("--provider-count=chars:0")))
                .hasMessageContaining("chars per token must be in");
        assertThatThrownBy(() -> d.with(List.of("--count-factor=9")))
                .hasMessageContaining("count factor must be in [0.2, 5]");
        assertThatThrownBy(() -> d.with(List.of("--count-factor=lots")))
                .hasMessage("--count-factor needs a number, got 'lots'");
        assertThatThrownBy(() -> d.with(List.of("--clock-offset=soon")))
                .hasMessageContaining("a duration like 800ms or -1s");
        assertThatThrownBy(() -> d.with(List.of("--clock-offset=2min"))).hasMessageContaining("a duration like 800ms");
        assertThatThrownBy(() -> d.with(List.of("--clock-offset=90s")))
                .hasMessageContaining("clock offset must be within");
        assertThatThrownBy(() -> d.with(List.of("--extra-latency=-5ms")))
                .hasMessageContaining("extra latency must be between 0");
        assertThatThrownBy(() -> d.with(List.of("--itpm=-1"))).hasMessageContaining("inputTokensPerMinute must be 0");
    }
}
