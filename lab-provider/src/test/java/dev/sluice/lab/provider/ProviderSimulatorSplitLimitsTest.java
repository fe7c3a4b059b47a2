package dev.sluice.lab.provider;

import static dev.sluice.lab.provider.Admissions.admitted;
import static dev.sluice.lab.provider.Admissions.rejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.lab.provider.Admission.Admitted;
import dev.sluice.lab.provider.Admission.Reason;
import dev.sluice.lab.provider.Admission.Rejected;
import org.junit.jupiter.api.Test;

/**
 * Input and output token limits (Anthropic's ITPM and OTPM) under a fake clock: each window must have
 * room, output is reserved from max tokens and settled to what the call wrote.
 */
class ProviderSimulatorSplitLimitsTest {

    /** Split limits only: no combined token limit. The model wants to write 200 tokens. */
    private static final LabLimits SPLIT = LabLimits.DEFAULTS
            .withLatencyJitter(0)
            .withInputTokensPerMinute(1_000)
            .withOutputTokensPerMinute(1_000)
            .withTokensPerMinute(0);

    @Test
    void theInputWindowRefusesAPromptThatDoesNotFitAndSaysWhenItWill() {
        var sim = new ProviderSimulator(SPLIT);
        admitted(sim.admit(800, 10, 0));

        Rejected r = rejected(sim.admit(300, 10, 1_000));
        assertThat(r.reason()).isEqualTo(Reason.INPUT_TOKENS_PER_MINUTE);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.limit()).isEqualTo(1_000);
        assertThat(r.used()).isEqualTo(800);
        assertThat(r.requested()).isEqualTo(300);
        assertThat(r.retryAfterMillis()).isEqualTo(59_000);
        assertThat(r.rateLimits().remainingInputTokens()).isEqualTo(200);

        assertThat(sim.admit(300, 10, 59_999)).isInstanceOf(Rejected.class);
        assertThat(sim.admit(300, 10, 60_000)).isInstanceOf(Admitted.class);
        assertThat(sim.stats(60_000).rejected429Tokens()).isEqualTo(2);
    }

    @Test
    void outputIsReservedFromMaxTokensAndSettledToWhatTheModelWrote() {
        var sim = new ProviderSimulator(SPLIT);
        // max_tokens 800 reserves 800 of the 1,000, though the model will write only 200.
        LabCall first = admitted(sim.admit(10, 800, 0));
        Rejected whileRunning = rejected(sim.admit(10, 300, 100));
        assertThat(whileRunning.reason()).isEqualTo(Reason.OUTPUT_TOKENS_PER_MINUTE);
        assertThat(whileRunning.used()).isEqualTo(800);
        assertThat(whileRunning.requested()).isEqualTo(300);

        sim.complete(first, 2_000);
        assertThat(sim.rateLimits(2_000).remainingOutputTokens()).isEqualTo(800);
        admitted(sim.admit(10, 300, 2_001));
        // No max tokens: the model's own 200 are reserved.
        admitted(sim.admit(10, ProviderSimulator.NO_MAX_TOKENS, 2_002));
        assertThat(sim.rateLimits(2_002).remainingOutputTokens()).isEqualTo(300);
    }

    @Test
    void aCancelledCallKeepsOnlyWhatWasSentInTheOutputWindow() {
        var sim = new ProviderSimulator(SPLIT);
        LabCall call = admitted(sim.admit(10, 1_000, 0));
        sim.cancel(call, 50, 500);
        assertThat(sim.rateLimits(500).remainingOutputTokens()).isEqualTo(950);
    }

    @Test
    void settlingACallWhoseAdmissionLeftTheWindowChangesNothing() {
        var sim = new ProviderSimulator(SPLIT);
        LabCall slow = admitted(sim.admit(10, 1_000, 0));
        // The minute has passed while the slow call still runs: its reservation left with it.
        LabCall next = admitted(sim.admit(10, 1_000, 60_000));
        sim.complete(slow, 60_500);
        assertThat(sim.rateLimits(60_500).remainingOutputTokens()).isZero();
        assertThat(rejected(sim.admit(10, 1, 60_600)).reason()).isEqualTo(Reason.OUTPUT_TOKENS_PER_MINUTE);
        sim.complete(next, 61_000);
        assertThat(sim.rateLimits(61_000).remainingOutputTokens()).isEqualTo(800);
    }

    @Test
    void theCombinedLimitStillHoldsBesideTheSplitOnesAndIsNotSettled() {
        var sim = new ProviderSimulator(
                SPLIT.withTokensPerMinute(1_000).withInputTokensPerMinute(5_000).withOutputTokensPerMinute(5_000));
        LabCall call = admitted(sim.admit(500, 400, 0));
        sim.complete(call, 1_000);
        // The combined window keeps prompt + max tokens, as today: 900 of 1,000.
        Rejected r = rejected(sim.admit(50, 100, 1_001));
        assertThat(r.reason()).isEqualTo(Reason.TOKENS_PER_MINUTE);
        assertThat(r.used()).isEqualTo(900);
    }

    @Test
    void thePromptOrOutputAloneAboveItsLimitIsTooLargeWithoutARetryTime() {
        var sim = new ProviderSimulator(SPLIT);
        Rejected prompt = rejected(sim.admit(1_001, 1, 0));
        assertThat(prompt.reason()).isEqualTo(Reason.REQUEST_TOO_LARGE);
        assertThat(prompt.retryAfterMillis()).isEqualTo(-1);
        assertThat(prompt.limit()).isEqualTo(1_000);
        Rejected output = rejected(sim.admit(1, 1_001, 0));
        assertThat(output.reason()).isEqualTo(Reason.REQUEST_TOO_LARGE);
        assertThat(output.requested()).isEqualTo(1_001);
    }

    @Test
    void theBindingLimitIsNamedAndTheRetryTimeSatisfiesAll() {
        var sim = new ProviderSimulator(SPLIT);
        admitted(sim.admit(900, 10, 0)); // input nearly full until 60 s
        admitted(sim.admit(10, 900, 30_000)); // output nearly full until 90 s
        Rejected r = rejected(sim.admit(200, 200, 31_000));
        assertThat(r.reason()).isEqualTo(Reason.OUTPUT_TOKENS_PER_MINUTE);
        assertThat(r.retryAfterMillis()).isEqualTo(90_000 - 31_000);
    }

    @Test
    void headersNameEachLimitAndLeaveOutTheCombinedOneWhenThereIsNone() {
        var sim = new ProviderSimulator(SPLIT);
        admitted(sim.admit(100, 300, 0));
        var headers = sim.rateLimits(1_000).headers();
        assertThat(headers)
                .containsEntry("x-ratelimit-limit-input-tokens", "1000")
                .containsEntry("x-ratelimit-remaining-input-tokens", "900")
                .containsEntry("x-ratelimit-limit-output-tokens", "1000")
                .containsEntry("x-ratelimit-remaining-output-tokens", "700")
                .containsEntry("x-ratelimit-reset-input-tokens", "59s")
                .containsKey("x-ratelimit-limit-requests")
                .doesNotContainKey("x-ratelimit-limit-tokens");
        // Today's provider: one combined limit, no split headers.
        var plain = new ProviderSimulator(LabLimits.DEFAULTS).rateLimits(0).headers();
        assertThat(plain).containsKey("x-ratelimit-limit-tokens").doesNotContainKey("x-ratelimit-limit-input-tokens");
    }

    @Test
    void theCombinedLimitMayBeDroppedOnlyForSplitOnes() {
        assertThatThrownBy(() -> LabLimits.DEFAULTS.withTokensPerMinute(0))
                .hasMessageContaining("tokensPerMinute must be at least 1 unless input or output");
        assertThatThrownBy(() -> LabLimits.DEFAULTS.withInputTokensPerMinute(-1))
                .hasMessageContaining("inputTokensPerMinute must be 0 (none) or more");
        assertThatThrownBy(() -> LabLimits.DEFAULTS.withOutputTokensPerMinute(-5))
                .hasMessageContaining("outputTokensPerMinute must be 0 (none) or more");
        assertThat(LabLimits.DEFAULTS.inputTokensPerMinute()).isZero();
        assertThat(LabLimits.DEFAULTS.outputTokensPerMinute()).isZero();
    }
}
