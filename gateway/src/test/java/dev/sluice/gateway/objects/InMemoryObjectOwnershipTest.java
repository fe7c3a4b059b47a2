package dev.sluice.gateway.objects;

import dev.sluice.gateway.objects.memory.InMemoryObjectOwnership;

class InMemoryObjectOwnershipTest extends ObjectOwnershipContract {
    @Override
    ObjectOwnership newStore() {
        return new InMemoryObjectOwnership();
    }
}
