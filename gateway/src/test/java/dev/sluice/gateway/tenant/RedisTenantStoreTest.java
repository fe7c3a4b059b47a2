package dev.sluice.gateway.tenant;

import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;

class RedisTenantStoreTest extends TenantStoreContract {
    @Override
    TenantStore newStore() {
        return new RedisTenantStore(TestRedisTemplates.template());
    }
}
