package dev.sluice.gateway.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link TenantStore} must do (in memory, Redis). */
abstract class TenantStoreContract {
    TenantStore store;
    String id;

    abstract TenantStore newStore();

    @BeforeEach
    void setUp() {
        store = newStore();
        id = "t-" + UUID.randomUUID();
    }

    @Test
    void aTenantIsSavedFoundAndListed() {
        store.save(new Tenant(id, "free", false)).block();
        assertThat(store.findById(id).block()).isEqualTo(new Tenant(id, "free", false));
        store.save(new Tenant(id, "pro", true)).block();
        assertThat(store.findById(id).block()).isEqualTo(new Tenant(id, "pro", true));
        assertThat(store.findAll().collectList().block()).contains(new Tenant(id, "pro", true));
        assertThat(store.findById("nobody-" + id).block()).isNull();
    }

    @Test
    void aTenantsOwnSpendBudgetsAreKeptAndRemoved() {
        SpendBudget own = new SpendBudget(500_000, 0, java.time.ZoneId.of("Europe/Paris"));
        store.save(new Tenant(id, "free", false, own)).block();
        assertThat(store.findById(id).block()).isEqualTo(new Tenant(id, "free", false, own));
        store.save(new Tenant(id, "pro", false)).block();
        assertThat(store.findById(id).block())
                .as("no override: the tier's again")
                .isEqualTo(new Tenant(id, "pro", false));
    }

    @Test
    void anOverrideTakesTheTiersBudgetForAPeriodItLeavesOut() {
        Tier tier = new Tier(
                "t",
                1,
                1,
                1.0,
                1,
                1,
                java.util.List.of(),
                java.util.Map.of(),
                false,
                dev.sluice.gateway.config.RedisDownPolicy.FAIL_OPEN,
                dev.sluice.gateway.config.EndpointAccess.DEFAULT,
                dev.sluice.gateway.config.TierModels.ALL,
                new SpendBudget(1_000_000, 20_000_000, SpendBudget.UTC));
        assertThat(new Tenant(id, "t", false).spendUnder(tier)).isEqualTo(tier.spend());
        assertThat(new Tenant(id, "t", false, new SpendBudget(5_000_000, 0, SpendBudget.UTC)).spendUnder(tier))
                .isEqualTo(new SpendBudget(5_000_000, 20_000_000, SpendBudget.UTC));
    }

    @Test
    void createRefusesAnExistingId() {
        assertThat(store.create(new Tenant(id, "free", false)).block()).isTrue();
        assertThat(store.create(new Tenant(id, "pro", true)).block()).isFalse();
        assertThat(store.findById(id).block()).isEqualTo(new Tenant(id, "free", false));
    }

    @Test
    void anIssuedKeyAuthenticatesAndIsListedWithoutItsSecret() {
        store.create(new Tenant(id, "free", false)).block();
        String secret = ApiKeys.generate();
        TenantKey key = TenantKey.forSecret(secret, Instant.parse("2026-01-01T00:00:00Z"));
        store.addKey(id, key).block();

        assertThat(store.findByKeyHash(ApiKeys.sha256Hex(secret)).block().id()).isEqualTo(id);
        List<TenantKey> keys = store.keys(id).collectList().block();
        assertThat(keys).containsExactly(key);
        assertThat(key.id()).matches(TenantKey.ID.pattern());
        assertThat(key.hint()).isEqualTo("sk-sluice-…" + secret.substring(secret.length() - 4));
        assertThat(key.toString()).doesNotContain(secret);
    }

    @Test
    void keysAreListedOldestFirst() {
        store.create(new Tenant(id, "free", false)).block();
        TenantKey later = TenantKey.forSecret(ApiKeys.generate(), Instant.parse("2026-02-01T00:00:00Z"));
        TenantKey earlier = TenantKey.forSecret(ApiKeys.generate(), Instant.parse("2026-01-01T00:00:00Z"));
        store.addKey(id, later).block();
        store.addKey(id, earlier).block();
        assertThat(store.keys(id).collectList().block()).containsExactly(earlier, later);
    }

    @Test
    void aRevokedKeyStopsAtOnceAndLeavesTheOthers() {
        store.create(new Tenant(id, "free", false)).block();
        String s1 = ApiKeys.generate();
        String s2 = ApiKeys.generate();
        TenantKey k1 = TenantKey.forSecret(s1, Instant.now());
        store.addKey(id, k1).block();
        store.addKey(id, TenantKey.forSecret(s2, Instant.now())).block();

        assertThat(store.revokeKey(id, k1.id()).block()).isTrue();
        assertThat(store.findByKeyHash(ApiKeys.sha256Hex(s1)).block()).isNull();
        assertThat(store.findByKeyHash(ApiKeys.sha256Hex(s2)).block()).isNotNull();
        assertThat(store.keys(id).collectList().block()).hasSize(1);
        assertThat(store.revokeKey(id, k1.id()).block()).isFalse();
    }

    @Test
    void aKeyIdOfAnotherTenantRevokesNothing() {
        store.create(new Tenant(id, "free", false)).block();
        store.create(new Tenant("o-" + id, "free", false)).block();
        String secret = ApiKeys.generate();
        TenantKey key = TenantKey.forSecret(secret, Instant.now());
        store.addKey(id, key).block();
        assertThat(store.revokeKey("o-" + id, key.id()).block()).isFalse();
        assertThat(store.findByKeyHash(key.sha256()).block()).isNotNull();
    }

    @Test
    void revokingByHashAlsoDropsTheListing() {
        store.create(new Tenant(id, "free", false)).block();
        String secret = ApiKeys.generate();
        store.addKey(id, ApiKeys.sha256Hex(secret)).block(); // a demo key: hash only
        assertThat(store.keys(id).collectList().block())
                .singleElement()
                .satisfies(k -> assertThat(k.hint()).isNull());
        assertThat(store.revokeKey(ApiKeys.sha256Hex(secret)).block()).isTrue();
        assertThat(store.keys(id).collectList().block()).isEmpty();
        assertThat(store.revokeKey(ApiKeys.sha256Hex(secret)).block()).isFalse();
    }

    @Test
    void aKeyNeedsAnExistingTenant() {
        assertThatThrownBy(() -> store.addKey("ghost-" + id, TenantKey.forSecret(ApiKeys.generate(), Instant.now()))
                        .block())
                .hasMessageContaining("no tenant");
    }

    @Test
    void aTenantsOrganisationIsKeptAndLeft() {
        store.save(new Tenant(id, "free", false, null, "acme")).block();
        assertThat(store.findById(id).block().organisation()).isEqualTo("acme");
        store.save(store.findById(id).block().inOrganisation(null)).block();
        assertThat(store.findById(id).block()).isEqualTo(new Tenant(id, "free", false));
    }

    @Test
    void aKeysOwnCapsAndExpiryAreKeptReadWithItsTenantAndChanged() {
        store.create(new Tenant(id, "free", false, null, "acme")).block();
        String secret = ApiKeys.generate();
        Instant expiry = Instant.parse("2027-01-31T00:00:00Z");
        TenantKey key = TenantKey.forSecret(secret, Instant.parse("2026-01-01T00:00:00Z"))
                .with(2_000, 250_000, expiry);
        store.addKey(id, key).block();
        assertThat(store.keys(id).collectList().block()).containsExactly(key);
        Caller caller = store.findCaller(key.sha256(), dev.sluice.gateway.store.DecisionBudget.UNLIMITED)
                .block();
        assertThat(caller.tenant().organisation()).isEqualTo("acme");
        assertThat(caller.key()).isEqualTo(key);

        TenantKey changed = key.with(0, 500_000, null);
        assertThat(store.updateKey(id, changed).block()).isTrue();
        assertThat(store.keys(id).collectList().block()).containsExactly(changed);
        assertThat(store.findCaller(key.sha256(), dev.sluice.gateway.store.DecisionBudget.UNLIMITED)
                        .block()
                        .key())
                .as("a change applies at once where it was made")
                .isEqualTo(changed);
        assertThat(store.updateKey("o-" + id, changed).block())
                .as("another tenant's")
                .isFalse();
        assertThat(store.revokeKey(id, key.id()).block()).isTrue();
        assertThat(store.updateKey(id, changed).block())
                .as("a revoked key is not brought back")
                .isFalse();
        assertThat(store.keys(id).collectList().block()).isEmpty();
    }
}
