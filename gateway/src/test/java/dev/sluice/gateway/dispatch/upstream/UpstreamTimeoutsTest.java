package dev.sluice.gateway.dispatch.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UpstreamTimeoutsTest {
    @Test
    void bothTimeoutsMustBePositiveAndTheSettingIsNamed() {
        assertThatThrownBy(() -> new UpstreamTimeouts(Duration.ZERO, Duration.ofSeconds(1)))
                .hasMessageContaining("sluice.upstream.stream-idle-timeout");
        assertThatThrownBy(() -> new UpstreamTimeouts(Duration.ofSeconds(1), Duration.ofMillis(-1)))
                .hasMessageContaining("sluice.upstream.body-timeout");
        assertThatThrownBy(() -> new UpstreamTimeouts(null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new UpstreamTimeouts(Duration.ofSeconds(120), Duration.ofSeconds(120)).streamIdle())
                .hasSeconds(120);
    }
}
