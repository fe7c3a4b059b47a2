package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.quota.FakeClock;
import org.junit.jupiter.api.Test;

class InMemoryProviderBudgetStoreTest extends ProviderBudgetStoreContract {
    @Override
    ProviderBudgetStore newStore(FakeClock clock) {
        return new InMemoryProviderBudgetStore(clock);
    }

    @Override
    ProviderBudgetStore replica(ProviderBudgetStore store, FakeClock clock) {
        return store; // one process, one store: the in-memory store is never shared between replicas
    }

    @Test
    void idleBudgetsAreDropped() {
        InMemoryProviderBudgetStore memory = (InMemoryProviderBudgetStore) store;
        String id = lease();
        acquire(LIMITS, 10, id);
        release(id);
        assertThat(memory.budgetsHeld()).isEqualTo(1);
        at(63_000); // the charge left the window two slots ago (a word may count it that long); the next call sweeps
        memory.snapshot("another:*", LIMITS).block();
        assertThat(memory.budgetsHeld()).isEqualTo(1); // only the one just touched
    }
}
