package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.tenant.redis.RedisOrganisationStore;
import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RedisOrganisationStoreTest extends OrganisationStoreContract {
    @Override
    OrganisationStore newStore() {
        return new RedisOrganisationStore(TestRedisTemplates.template());
    }

    /** Two replicas on one Redis: a change made on one reaches a request on the other within a second. */
    @Test
    void anotherReplicaSeesAChangeWithinASecond() {
        AtomicLong nanos = new AtomicLong();
        var here = new RedisOrganisationStore(
                TestRedisTemplates.template(),
                nanos::get,
                dev.sluice.gateway.store.StoreState.alwaysUp(),
                Duration.ofSeconds(5));
        var there = new RedisOrganisationStore(
                TestRedisTemplates.template(),
                nanos::get,
                dev.sluice.gateway.store.StoreState.alwaysUp(),
                Duration.ofSeconds(5));
        here.create(new Organisation(id, "Acme", WINDOWS, SPEND)).block(Duration.ofSeconds(5));
        assertThat(there.findById(id, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .windows())
                .isEqualTo(WINDOWS);
        here.save(new Organisation(id, "Acme", List.of(), SPEND)).block(Duration.ofSeconds(5));
        assertThat(here.findById(id, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .windows())
                .as("where it was changed: at once")
                .isEmpty();
        nanos.addAndGet(RedisTenantStore.REMEMBER.toNanos() - 1);
        assertThat(there.findById(id, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .windows())
                .as("elsewhere: still remembered")
                .isEqualTo(WINDOWS);
        nanos.addAndGet(1);
        assertThat(there.findById(id, DecisionBudget.UNLIMITED)
                        .block(Duration.ofSeconds(5))
                        .windows())
                .as("elsewhere: after a second")
                .isEmpty();
    }
}
