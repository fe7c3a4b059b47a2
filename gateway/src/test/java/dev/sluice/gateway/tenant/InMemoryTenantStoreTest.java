package dev.sluice.gateway.tenant;

class InMemoryTenantStoreTest extends TenantStoreContract {
    @Override
    TenantStore newStore() {
        return new InMemoryTenantStore();
    }
}
