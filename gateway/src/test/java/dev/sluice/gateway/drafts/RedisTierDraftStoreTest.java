package dev.sluice.gateway.drafts;

import dev.sluice.gateway.drafts.redis.RedisTierDraftStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.util.UUID;

class RedisTierDraftStoreTest extends TierDraftStoreContract {
    @Override
    TierDraftStore newStore() {
        return new RedisTierDraftStore(TestRedisTemplates.template(), "test-" + UUID.randomUUID());
    }
}
