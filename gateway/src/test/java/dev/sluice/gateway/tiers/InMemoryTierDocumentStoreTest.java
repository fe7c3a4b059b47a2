package dev.sluice.gateway.tiers;

import dev.sluice.gateway.quota.FakeClock;

class InMemoryTierDocumentStoreTest extends TierDocumentStoreContract {
    @Override
    TierDocumentStore newStore(FakeClock clock) {
        return new InMemoryTierDocumentStore(clock);
    }
}
