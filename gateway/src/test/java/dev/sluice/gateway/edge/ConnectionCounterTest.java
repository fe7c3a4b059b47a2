package dev.sluice.gateway.edge;

import static org.assertj.core.api.Assertions.assertThat;

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
}
