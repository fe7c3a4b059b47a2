package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BudgetLimitsTest {
    final ProviderSettings provider = new ProviderSettings(
            "default",
            "",
            "KEY",
            0.95,
            Map.of(
                    "*", new ModelLimits(1500, 300_000, 200, 3.0),
                    "gpt-4o", new ModelLimits(500, 30_000, 50, 5.0)));

    @Test
    void theProvidersLimitsAreReducedByItsHeadroom() {
        BudgetLimits any = BudgetLimits.of(provider, "some-model", Duration.ofSeconds(240));
        assertThat(any).isEqualTo(new BudgetLimits(1425, 285_000, 190, 240_000));
        assertThat(BudgetLimits.of(provider, "gpt-4o", Duration.ofSeconds(240)))
                .isEqualTo(new BudgetLimits(475, 28_500, 47, 240_000));
    }

    @Test
    void inputAndOutputLimitsAreReducedByTheHeadroomAndWithoutATotalTheTotalIsUncapped() {
        BudgetLimits split =
                BudgetLimits.of(new ModelLimits(50, 0, 20, 3.0, 30_000, 8_000), 0.95, Duration.ofSeconds(240));
        assertThat(split).isEqualTo(new BudgetLimits(47, Long.MAX_VALUE, 19, 240_000, 28_500, 7_600));
        assertThat(split.split()).isTrue();
        assertThat(split.tokenScale()).as("what sizes the fair queue's credit").isEqualTo(28_500 + 7_600);
        assertThat(split.withMaxInFlight(5)).isEqualTo(new BudgetLimits(47, Long.MAX_VALUE, 5, 240_000, 28_500, 7_600));
        BudgetLimits both =
                BudgetLimits.of(new ModelLimits(50, 40_000, 20, 3.0, 0, 8_000), 1.0, Duration.ofSeconds(240));
        assertThat(both).isEqualTo(new BudgetLimits(50, 40_000, 20, 240_000, 0, 8_000));
        assertThat(both.tokenScale()).isEqualTo(40_000);
        assertThat(BudgetLimits.of(provider, "x", Duration.ofSeconds(240)).split())
                .isFalse();
        BudgetLimits huge = new BudgetLimits(1, Long.MAX_VALUE, 1, 1, Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(huge.tokenScale()).as("saturates").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aModelWithItsOwnLimitsHasItsOwnBudgetTheRestShareTheCatchAll() {
        assertThat(ProviderBudgetStore.key(provider, "gpt-4o")).isEqualTo("default:gpt-4o");
        assertThat(ProviderBudgetStore.key(provider, "gpt-4o-mini")).isEqualTo("default:*");
        assertThat(ProviderBudgetStore.key(provider, null)).isEqualTo("default:*");
    }

    @Test
    void anAdaptiveLimitOnlyLowersTheSlots() {
        BudgetLimits l = new BudgetLimits(1425, 285_000, 190, 240_000);
        assertThat(l.withMaxInFlight(120).maxInFlight()).isEqualTo(120);
        assertThat(l.withMaxInFlight(500).maxInFlight()).isEqualTo(190);
        assertThat(l.withMaxInFlight(0).maxInFlight()).isEqualTo(1);
    }

    @Test
    void theInFlightHintIsACallsTimeOverTheSlotsWithinBounds() {
        assertThat(new BudgetLimits(1, 1, 190, 240_000).inFlightHintMs()).isEqualTo(120_000 / 190);
        assertThat(new BudgetLimits(1, 1, 1, 240_000).inFlightHintMs()).isEqualTo(1_000);
        assertThat(new BudgetLimits(1, 1, 1000, 4_000).inFlightHintMs()).isEqualTo(10);
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new BudgetLimits(0, 1, 1, 1)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new BudgetLimits(1, 1, 1, 1, -1, 0)).hasMessageContaining("input and output");
        assertThatThrownBy(() -> new ModelLimits(1, 0, 1, 0)).hasMessageContaining("at least one token limit");
        assertThatThrownBy(() -> BudgetLimits.of(new ModelLimits(1, 1, 1, 0), 0, Duration.ofSeconds(1)))
                .hasMessageContaining("headroom");
    }
}
