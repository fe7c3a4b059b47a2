package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import io.lettuce.core.cluster.SlotHash;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Where each level of a request is charged: the owner, the names, and what a name says about its level. */
class QuotaScopeTest {
    static final long NOW = Instant.parse("2026-12-06T18:00:00Z").toEpochMilli();
    static final Tier PRO = TiersYamlParser.parse("tiers.yaml", """
                    tiers:
                      pro:
                        tokens-per-minute: 1000
                        requests-per-minute: 10
                        priority: 2
                        model-limits: {gpt-4o: {tokens-per-minute: 500}}
                        spend: {usd-per-day: 1, usd-per-month: 20}
                    providers:
                      - name: default
                        models:
                          "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                    """).tier("pro").orElseThrow();
    static final Organisation ACME = new Organisation(
            "acme",
            "Acme",
            List.of(new WindowLimit("minute", 60, 5_000, 50)),
            new SpendBudget(10_000_000, 0, SpendBudget.UTC));
    static final TenantKey CAPPED =
            TenantKey.forSecret(ApiKeys.generate(), Instant.EPOCH).with(300, 100_000, null);

    @Test
    void aTenantInNoOrganisationKeepsItsKeysExactly() {
        QuotaScope s = QuotaScope.of(new Tenant("t1", "pro", false), null, null, PRO, "gpt-4o", NOW);
        assertThat(s.owner()).isEqualTo("t1");
        assertThat(keys(s))
                .containsExactly(
                        "sluice:q:{t1}:minute",
                        "sluice:q:{t1}:hour",
                        "sluice:q:{t1}:model:gpt-4o",
                        "sluice:q:{t1}:spend:day:2026-12-06",
                        "sluice:q:{t1}:spend:month:2026-12");
    }

    @Test
    void aMembersLevelsAllLiveUnderItsOrganisationInOneSlot() {
        Tenant t1 = new Tenant("t1", "pro", false, null, "acme");
        QuotaScope s = QuotaScope.of(t1, ACME, CAPPED, PRO, "gpt-4o", NOW);
        assertThat(s.owner()).isEqualTo("org:acme");
        String k = CAPPED.id();
        assertThat(keys(s))
                .containsExactly(
                        "sluice:q:{org:acme}:t:t1:minute",
                        "sluice:q:{org:acme}:t:t1:hour",
                        "sluice:q:{org:acme}:t:t1:model:gpt-4o",
                        "sluice:q:{org:acme}:k:" + k + ":minute",
                        "sluice:q:{org:acme}:o:minute",
                        "sluice:q:{org:acme}:t:t1:spend:day:2026-12-06",
                        "sluice:q:{org:acme}:t:t1:spend:month:2026-12",
                        "sluice:q:{org:acme}:k:" + k + ":spend:day:2026-12-06",
                        "sluice:q:{org:acme}:o:spend:day:2026-12-06");
        assertThat(keys(s).stream().map(SlotHash::getSlot).collect(Collectors.toSet()))
                .as("Redis Cluster: one script's keys in one slot")
                .hasSize(1);
        // Another member's tenant windows are its own, in the same slot.
        QuotaScope other = QuotaScope.of(new Tenant("t2", "pro", false, null, "acme"), ACME, null, PRO, null, NOW);
        assertThat(keys(other)).contains("sluice:q:{org:acme}:t:t2:minute", "sluice:q:{org:acme}:o:minute");
        assertThat(SlotHash.getSlot(keys(other).get(0))).isEqualTo(SlotHash.getSlot(keys(s).get(0)));
    }

    @Test
    void anOrganisationCannotOwnATenantsWindows() {
        // ':' is not allowed in a tenant id: no tenant is named "org:acme".
        assertThat(TiersYamlParser.NAME.matcher("org:acme").matches()).isFalse();
        assertThat(QuotaScope.owner("acme", null)).isNotEqualTo(QuotaScope.owner("x", "acme"));
    }

    @Test
    void aKeysCapsAreTheirOwnLevelUnderATenantInNoOrganisation() {
        QuotaScope s = QuotaScope.of(new Tenant("t1", "pro", false), null, CAPPED, PRO, null, NOW);
        assertThat(s.owner()).isEqualTo("t1");
        WindowLimit keyWindow = s.windows().get(s.windows().size() - 1);
        assertThat(keyWindow).isEqualTo(new WindowLimit("k:" + CAPPED.id() + ":minute", 60, 300, Long.MAX_VALUE));
        assertThat(s.windows().get(0).name()).as("the tenant's minute first").isEqualTo("minute");
    }

    @Test
    void aNameSaysItsLevel() {
        assertThat(QuotaScope.levelOf("minute"))
                .isEqualTo(new QuotaScope.Level(QuotaScope.Kind.TENANT, null, "minute"));
        assertThat(QuotaScope.levelOf("model:ft:gpt-4o:acme"))
                .isEqualTo(new QuotaScope.Level(QuotaScope.Kind.TENANT, null, "model:ft:gpt-4o:acme"));
        assertThat(QuotaScope.levelOf("t:t1:spend:day:2026-12-06"))
                .isEqualTo(new QuotaScope.Level(QuotaScope.Kind.TENANT, "t1", "spend:day:2026-12-06"));
        assertThat(QuotaScope.levelOf("k:key_0123456789ab:minute"))
                .isEqualTo(new QuotaScope.Level(QuotaScope.Kind.KEY, "key_0123456789ab", "minute"));
        assertThat(QuotaScope.levelOf("o:spend:month:2026-12"))
                .isEqualTo(new QuotaScope.Level(QuotaScope.Kind.ORGANISATION, null, "spend:month:2026-12"));
        assertThat(SpendLimit.isSpend("o:spend:day:2026-12-06")).isTrue();
        assertThat(SpendLimit.isSpend("k:key_0123456789ab:spend:day:2026-12-06"))
                .isTrue();
        assertThat(SpendLimit.isSpend("t:t1:minute")).isFalse();
        assertThat(QuotaScope.publicName("t:t1:minute")).isEqualTo("minute");
        assertThat(QuotaScope.publicName("k:key_0123456789ab:minute")).isEqualTo("key-minute");
        assertThat(QuotaScope.publicName("o:day")).isEqualTo("organisation-day");
    }

    @Test
    void aTiersWindowNameCannotTakeALevelsPrefix() {
        var problems = org.assertj.core.api.Assertions.catchThrowable(() -> TiersYamlParser.parse("tiers.yaml", """
                tiers:
                  pro:
                    tokens-per-minute: 1000
                    requests-per-minute: 10
                    priority: 2
                    windows: [{name: "o:day", seconds: 86400}]
                providers:
                  - name: default
                    models:
                      "*": {requests-per-minute: 1500, tokens-per-minute: 300000, max-in-flight: 200}
                """));
        assertThat(problems).hasMessageContaining("must not contain ':'");
    }

    private static List<String> keys(QuotaScope s) {
        List<String> out = new ArrayList<>();
        for (WindowLimit w : s.windows()) out.add(RedisQuotaStore.key(s.owner(), w.name()));
        for (SpendLimit l : s.spends()) out.add(RedisQuotaStore.key(s.owner(), l.name()));
        return out;
    }
}
