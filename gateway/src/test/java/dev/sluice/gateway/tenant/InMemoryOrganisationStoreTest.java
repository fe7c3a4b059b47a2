package dev.sluice.gateway.tenant;

class InMemoryOrganisationStoreTest extends OrganisationStoreContract {
    @Override
    OrganisationStore newStore() {
        return new InMemoryOrganisationStore();
    }
}
