package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RedisTenantStoreTest extends TenantStoreContract {
    @Override
    TenantStore newStore() {
        return new RedisTenantStore(TestRedisTemplates.template());
    }

    /** Two replicas on one Redis, each with its own store: changes made on one reach the other within a second. */
    @Test
    void anotherReplicaStopsAcceptingARevokedKeyWithinASecond() {
        AtomicLong nanos = new AtomicLong();
        RedisTenantStore here = new RedisTenantStore(TestRedisTemplates.template(), nanos::get);
        RedisTenantStore there = new RedisTenantStore(TestRedisTemplates.template(), nanos::get);
        String id = "remembered-" + System.nanoTime();
        String hash = ApiKeys.sha256Hex(ApiKeys.generate());
        here.save(new Tenant(id, "free", false)).then(here.addKey(id, hash)).block(Duration.ofSeconds(5));
        assertThat(there.findByKeyHash(hash).block(Duration.ofSeconds(5))).isNotNull();

        assertThat(here.revokeKey(hash).block(Duration.ofSeconds(5))).isTrue();
        assertThat(here.findByKeyHash(hash).block(Duration.ofSeconds(5))).as("where it was revoked: at once").isNull();
        nanos.addAndGet(RedisTenantStore.REMEMBER.toNanos() - 1);
        assertThat(there.findByKeyHash(hash).block(Duration.ofSeconds(5))).as("elsewhere: still remembered").isNotNull();
        nanos.addAndGet(1);
        assertThat(there.findByKeyHash(hash).block(Duration.ofSeconds(5))).as("elsewhere: after a second").isNull();
    }

    @Test
    void aSuspensionMadeHereAppliesHereAtOnce() {
        RedisTenantStore store = new RedisTenantStore(TestRedisTemplates.template(), () -> 0L); // time stands still
        String id = "suspended-" + System.nanoTime();
        String hash = ApiKeys.sha256Hex(ApiKeys.generate());
        store.save(new Tenant(id, "pro", false)).then(store.addKey(id, hash)).block(Duration.ofSeconds(5));
        assertThat(store.findByKeyHash(hash).block(Duration.ofSeconds(5)).suspended()).isFalse();
        store.save(new Tenant(id, "pro", true)).block(Duration.ofSeconds(5));
        assertThat(store.findByKeyHash(hash).block(Duration.ofSeconds(5)).suspended()).isTrue();
    }
}
