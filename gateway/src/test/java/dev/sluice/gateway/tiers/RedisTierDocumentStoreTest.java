package dev.sluice.gateway.tiers;

import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import dev.sluice.gateway.tiers.redis.RedisTierDocumentStore;
import java.util.UUID;

class RedisTierDocumentStoreTest extends TierDocumentStoreContract {
    @Override
    TierDocumentStore newStore(FakeClock clock) {
        return new RedisTierDocumentStore(TestRedisTemplates.template(), "test-" + UUID.randomUUID(), clock);
    }
}
