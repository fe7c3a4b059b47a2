package dev.sluice.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MoneyTest {

    @Test
    void aCostIsWholeMicroDollarsRoundedUp() {
        assertThat(Money.cost(3_333, 3_000_000)).as("3,333 tokens at $3/M").isEqualTo(9_999);
        assertThat(Money.cost(1, 150_000))
                .as("a fraction of a micro-dollar is one")
                .isEqualTo(1);
        assertThat(Money.cost(0, 3_000_000)).isZero();
        assertThat(Money.cost(1_000_000, 0)).isZero();
        assertThat(Money.cost(2_500_001, 3_000_000)).isEqualTo(7_500_003);
    }

    @Test
    void everyOperationSaturatesInsteadOfWrapping() {
        assertThat(Money.cost(Long.MAX_VALUE, 3_000_000)).isEqualTo(Long.MAX_VALUE);
        assertThat(Money.cost(2_000_000, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(Money.cost(999_999, Long.MAX_VALUE))
                .as("no overflow in the part below a million")
                .isEqualTo(9_223_362_813_482_738_953L);
        assertThat(Money.cost(Long.MAX_VALUE, Long.MAX_VALUE, 3_000_000, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Money.add(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Money.add(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
        assertThat(Money.add(5, -7)).isEqualTo(-2);
        assertThat(Money.clamp(Long.MAX_VALUE)).isEqualTo(Money.MAX_MICROS);
        assertThat(Money.clamp(-1)).isZero();
    }

    @Test
    void pricesAndAmountsReadAndWriteAsUsd() {
        assertThat(Money.micros(0.15)).isEqualTo(150_000);
        assertThat(Money.micros(3.0)).isEqualTo(3_000_000);
        assertThat(Money.usd(1_000_000)).isEqualTo("$1.00");
        assertThat(Money.usd(10_000)).isEqualTo("$0.01");
        assertThat(Money.usd(123)).isEqualTo("$0.000123");
        assertThat(Money.plain(6_667)).isEqualTo("0.006667");
        assertThat(Money.plain(0)).isEqualTo("0.00");
    }
}
