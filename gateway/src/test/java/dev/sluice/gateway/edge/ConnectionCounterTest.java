package dev.sluice.gateway.edge;

import dev.sluice.gateway.config.EdgeProperties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConnectionCounterTest {

    @Test
    void anAddressGetsItsBoundAndNoMoreOthersAreUntouched() {
        ConnectionCounter c = new ConnectionCounter(2);
        assertThat(c.tryOpen("10.0.0.1")).isTrue();
        assertThat(c.tryOpen("10.0.0.1")).isTrue();
        assertThat(c.tryOpen("10.0.0.1")).isFalse();
        assertThat(c.open("10.0.0.1")).isEqualTo(2);
        assertThat(c.tryOpen("10.0.0.2")).isTrue();
        c.close("10.0.0.1");
        assertThat(c.tryOpen("10.0.0.1")).isTrue();
    }

    @Test
    void anAddressIsForgottenWithItsLastConnection() {
        ConnectionCounter c = new ConnectionCounter(3);
        c.tryOpen("10.0.0.1");
        c.close("10.0.0.1");
        c.close("10.0.0.1"); // a stray close never goes below zero
        assertThat(c.open("10.0.0.1")).isZero();
        assertThat(c.tryOpen("10.0.0.1")).isTrue();
    }

    @Test
    void zeroMeansNoBound() {
        ConnectionCounter c = new ConnectionCounter(0);
        for (int i = 0; i < 10_000; i++) assertThat(c.tryOpen("10.0.0.1")).isTrue();
    }

    @Test
    void settingsAreValidatedWhenBuilt() {
        assertThatThrownBy(() -> new EdgeProperties(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 1))
                .hasMessageContaining("sluice.edge.idle-timeout must be a positive duration");
        assertThatThrownBy(() -> new EdgeProperties(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(5), 1))
                .hasMessageContaining("sluice.edge.request-timeout (5s) must be at least sluice.edge.read-timeout (10s)");
        assertThatThrownBy(() -> new EdgeProperties(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), -1))
                .hasMessageContaining("sluice.edge.max-connections-per-client must be 0 (no bound) or more");
        assertThatThrownBy(() -> new EdgeProperties(Duration.ofHours(2), Duration.ofSeconds(1), Duration.ofSeconds(1), 1))
                .hasMessageContaining("at most 1h");
    }
}
