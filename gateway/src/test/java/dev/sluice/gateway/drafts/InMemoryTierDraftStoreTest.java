package dev.sluice.gateway.drafts;

class InMemoryTierDraftStoreTest extends TierDraftStoreContract {
    @Override
    TierDraftStore newStore() {
        return new InMemoryTierDraftStore();
    }
}
