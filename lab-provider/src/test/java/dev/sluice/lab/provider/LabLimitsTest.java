package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LabLimitsTest {

    @Test
    void defaultsAreSeed000sProvider() {
        LabLimits d = LabLimits.DEFAULTS;
        assertThat(d.requestsPerMinute()).isEqualTo(1500);
        assertThat(d.tokensPerMinute()).isEqualTo(300_000);
        assertThat(d.maxInFlight()).isEqualTo(200);
        assertThat(d.pricePerMillionTokens()).isEqualTo(3.0);
        assertThat(d.latency()).isEqualTo(Duration.ofSeconds(2));
        assertThat(d.latencyJitter()).isEqualTo(0.1);
        assertThat(d.window()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.completionTokens()).isEqualTo(200);
    }

    @Test
    void invalidValuesAreRefusedWithTheFieldName() {
        LabLimits d = LabLimits.DEFAULTS;
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withRequestsPerMinute(0))
                .withMessageContaining("requestsPerMinute");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withTokensPerMinute(-5))
                .withMessageContaining("tokensPerMinute");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withMaxInFlight(0))
                .withMessageContaining("maxInFlight");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withPricePerMillionTokens(Double.NaN))
                .withMessageContaining("pricePerMillionTokens");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withLatency(Duration.ofMillis(-1)))
                .withMessageContaining("latency");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withLatencyJitter(1.0))
                .withMessageContaining("latencyJitter");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withWindow(Duration.ZERO))
                .withMessageContaining("window");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> d.withCompletionTokens(0))
                .withMessageContaining("completionTokens");
    }
}
