package dev.sluice.gateway.quota;

import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;

class InMemoryQuotaStoreTest extends QuotaStoreContract {
    @Override
    QuotaStore newStore(FakeClock clock) {
        return new InMemoryQuotaStore(clock);
    }
}
