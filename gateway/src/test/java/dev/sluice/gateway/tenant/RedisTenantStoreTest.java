package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

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
        assertThat(here.findByKeyHash(hash).block(Duration.ofSeconds(5)))
                .as("where it was revoked: at once")
                .isNull();
        nanos.addAndGet(RedisTenantStore.REMEMBER.toNanos() - 1);
        assertThat(there.findByKeyHash(hash).block(Duration.ofSeconds(5)))
                .as("elsewhere: still remembered")
                .isNotNull();
        nanos.addAndGet(1);
        assertThat(there.findByKeyHash(hash).block(Duration.ofSeconds(5)))
                .as("elsewhere: after a second")
                .isNull();
    }

    @Test
    void aSuspensionMadeHereAppliesHereAtOnce() {
        RedisTenantStore store = new RedisTenantStore(TestRedisTemplates.template(), () -> 0L); // time stands still
        String id = "suspended-" + System.nanoTime();
        String hash = ApiKeys.sha256Hex(ApiKeys.generate());
        store.save(new Tenant(id, "pro", false)).then(store.addKey(id, hash)).block(Duration.ofSeconds(5));
        assertThat(store.findByKeyHash(hash).block(Duration.ofSeconds(5)).suspended())
                .isFalse();
        store.save(new Tenant(id, "pro", true)).block(Duration.ofSeconds(5));
        assertThat(store.findByKeyHash(hash).block(Duration.ofSeconds(5)).suspended())
                .isTrue();
    }

    /**
     * Redis out: a key known from the refreshed copy of the key hashes still resolves, even
     * one never looked up here; a revocation made elsewhere reaches the copy at the next
     * refresh, one made here at once; a suspension still refuses; an unknown hash cannot be told.
     */
    @Test
    void whileRedisIsOutKnownKeysResolveAndRevocationsAndSuspensionsStillApply() {
        StoreState state = new StoreState(true, System::currentTimeMillis);
        RedisTenantStore here =
                new RedisTenantStore(TestRedisTemplates.template(), () -> 0L, state, Duration.ofMillis(500));
        RedisTenantStore there = new RedisTenantStore(TestRedisTemplates.template());
        String id = "known-" + System.nanoTime();
        String kept = ApiKeys.sha256Hex(ApiKeys.generate());
        String revokedThere = ApiKeys.sha256Hex(ApiKeys.generate());
        String revokedHere = ApiKeys.sha256Hex(ApiKeys.generate());
        there.save(new Tenant(id, "pro", false))
                .then(there.addKey(id, kept))
                .then(there.addKey(id, revokedThere))
                .then(there.addKey(id, revokedHere))
                .block(Duration.ofSeconds(5));
        here.refreshKnown().block(Duration.ofSeconds(10));
        assertThat(there.revokeKey(revokedThere).block(Duration.ofSeconds(5))).isTrue();
        here.refreshKnown().block(Duration.ofSeconds(10));

        state.failed(new IllegalStateException("Redis paused")); // what the first timed-out call does
        assertThat(here.findByKeyHash(kept).block(Duration.ofSeconds(1)))
                .as("never looked up here, known from the refresh")
                .isEqualTo(new Tenant(id, "pro", false));
        assertThat(here.knows(revokedThere))
                .as("revoked on another replica before the refresh")
                .isFalse();
        here.revokeKey(revokedHere).onErrorResume(e -> Mono.empty()).subscribe();
        assertThat(here.knows(revokedHere)).as("revoked here: at once").isFalse();
        here.save(new Tenant(id, "pro", true)).onErrorResume(e -> Mono.empty()).subscribe();
        assertThat(here.findByKeyHash(kept).block(Duration.ofSeconds(1)).suspended())
                .as("suspended here: at once")
                .isTrue();
        assertThatThrownBy(() -> here.findByKeyHash(ApiKeys.sha256Hex(ApiKeys.generate()))
                        .block(Duration.ofSeconds(1)))
                .isInstanceOf(StoreUnavailableException.class);
    }

    /** A request with no time left to wait on Redis is answered from the known keys, as while Redis is out, without marking it down. */
    @Test
    void aLookupWithItsStoreBudgetSpentIsAnsweredFromTheKnownKeys() {
        StoreState state = new StoreState(true, System::currentTimeMillis);
        RedisTenantStore here =
                new RedisTenantStore(TestRedisTemplates.template(), () -> 0L, state, Duration.ofMillis(500));
        String id = "budget-" + System.nanoTime();
        String key = ApiKeys.sha256Hex(ApiKeys.generate());
        String neverSeen = ApiKeys.sha256Hex(ApiKeys.generate());
        here.save(new Tenant(id, "pro", false))
                .then(here.addKey(id, key))
                .then(here.addKey(id, neverSeen))
                .block(Duration.ofSeconds(5));
        here.know(key, new Tenant(id, "pro", false));
        DecisionBudget spent = DecisionBudget.of(Duration.ZERO, System::nanoTime);
        assertThat(here.findByKeyHash(key, spent).block(Duration.ofSeconds(1))).isEqualTo(new Tenant(id, "pro", false));
        assertThatThrownBy(() -> here.findByKeyHash(neverSeen, spent).block(Duration.ofSeconds(1)))
                .as("in Redis, but not asked: it cannot be told")
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(state.up()).isTrue();
    }
}
