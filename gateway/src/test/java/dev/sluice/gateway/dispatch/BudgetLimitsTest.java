package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BudgetLimitsTest {
    final ProviderSettings provider = new ProviderSettings("default", "", "KEY", 0.95, Map.of(
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
        assertThatThrownBy(() -> BudgetLimits.of(new ModelLimits(1, 1, 1, 0), 0, Duration.ofSeconds(1)))
                .hasMessageContaining("headroom");
    }
}
