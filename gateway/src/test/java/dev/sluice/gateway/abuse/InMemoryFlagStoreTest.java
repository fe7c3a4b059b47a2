package dev.sluice.gateway.abuse;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;

class InMemoryFlagStoreTest extends FlagStoreContract {
    @Override
    FlagStore newStore() {
        return new InMemoryFlagStore();
    }
}
