package dev.sluice.gateway.quota;

import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;

/** The same contract against a real Redis, through the Lua scripts. */
class RedisQuotaStoreTest extends QuotaStoreContract {
    @Override
    QuotaStore newStore(FakeClock clock) {
        return new ClockedRedisQuotaStore(TestRedisTemplates.template(), clock);
    }
}
