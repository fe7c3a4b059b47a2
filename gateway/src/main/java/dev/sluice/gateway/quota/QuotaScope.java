package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything one request is charged to, as the quota store charges it: one <em>owner</em> (the
 * hash tag of every key: {@code sluice:q:{owner}:<name>}) and the windows and spend periods of every
 * level, each named so that its level can be read back from the name. The one place that says where
 * a tenant's windows live: every caller that charges, settles, peeks or explains a refusal builds or
 * reads its names here.
 *
 * <p><b>Owner.</b> A tenant in no organisation owns its windows, named as they always were
 * ({@code sluice:q:{acme}:minute}, {@code ...:model:gpt-4o}, {@code ...:spend:day:2026-12-06}). A
 * member tenant's windows move under its organisation, {@code org:<id>} ({@code ':'} cannot occur in
 * a tenant id, so no tenant can own that tag), so that one atomic script checks and charges every
 * level and Redis Cluster keeps all of them in one slot.
 *
 * <p><b>Names</b> (ids cannot hold ':', and tiers.yaml's and organisations' window names neither, so
 * a prefix is never ambiguous):
 * <ul>
 *   <li>tenant level: the plain name for a non-member; {@code t:<tenant>:<name>} under an organisation;</li>
 *   <li>key level (a key's own caps): {@code k:<key id>:minute} (tokens per minute) and
 *       {@code k:<key id>:spend:day:<date>} (USD per day, in the tenant's budget zone);</li>
 *   <li>organisation level: {@code o:<window>}, {@code o:spend:day:<date>}, {@code o:spend:month:<month>}.</li>
 * </ul>
 * Order: the tenant's windows first (its minute window first: the OpenAI headers describe it), then
 * the key's, then the organisation's; likewise the spend periods.
 */
public record QuotaScope(
        String owner,
        String tenantId,
        String organisationId,
        String keyId,
        List<WindowLimit> windows,
        List<SpendLimit> spends) {
    /** The owner prefix of an organisation's windows. */
    public static final String ORGANISATION_OWNER = "org:";

    public QuotaScope {
        windows = List.copyOf(windows);
        spends = List.copyOf(spends);
    }

    /** Which level a window or spend period belongs to. */
    public enum Kind {
        TENANT,
        KEY,
        ORGANISATION
    }

    /**
     * A name read back: its level, the tenant's or key's id where the name carries one, and the name
     * as the level knows it ({@code minute}, {@code model:gpt-4o}, {@code spend:day:2026-12-06}).
     */
    public record Level(Kind kind, String id, String base) {}

    /** What owns the windows of {@code tenantId} in {@code organisationId} (null: none). */
    public static String owner(String tenantId, String organisationId) {
        return organisationId == null ? tenantId : ORGANISATION_OWNER + organisationId;
    }

    /** The scope of a store call made with a tenant's windows as given (no organisation, no key). */
    public static QuotaScope plain(String tenantId, List<WindowLimit> windows, List<SpendLimit> spends) {
        return new QuotaScope(tenantId, tenantId, null, null, windows, spends);
    }

    /**
     * Every level of one request: the tenant's tier windows for {@code model} and its spend budgets,
     * the key's own caps ({@code key} null or without caps: none) and the organisation's windows and
     * budgets ({@code organisation} null: none), spend periods as of {@code nowMs}.
     */
    public static QuotaScope of(
            Tenant tenant, Organisation organisation, TenantKey key, Tier tier, String model, long nowMs) {
        String orgId = organisation == null ? null : organisation.id();
        String tenantPrefix = orgId == null ? "" : "t:" + tenant.id() + ":";
        List<WindowLimit> windows = new ArrayList<>();
        List<SpendLimit> spends = new ArrayList<>();
        SpendBudget own = tenant.spendUnder(tier);
        for (WindowLimit w : tier.windowsFor(model)) windows.add(named(tenantPrefix, w));
        for (SpendLimit s : SpendLimit.of(own, nowMs)) spends.add(named(tenantPrefix, s));
        if (key != null && key.caps()) {
            String keyPrefix = "k:" + key.id() + ":";
            if (key.tokensPerMinute() > 0)
                windows.add(new WindowLimit(keyPrefix + "minute", 60, key.tokensPerMinute(), Long.MAX_VALUE));
            if (key.usdPerDayMicros() > 0)
                for (SpendLimit s : SpendLimit.of(new SpendBudget(key.usdPerDayMicros(), 0, own.zone()), nowMs))
                    spends.add(named(keyPrefix, s));
        }
        if (organisation != null) {
            for (WindowLimit w : organisation.windows()) windows.add(named("o:", w));
            for (SpendLimit s : SpendLimit.of(organisation.spend(), nowMs)) spends.add(named("o:", s));
        }
        return new QuotaScope(
                owner(tenant.id(), orgId), tenant.id(), orgId, key == null ? null : key.id(), windows, spends);
    }

    /**
     * A tenant's own level for {@code model}: its tier windows and its spend periods as of
     * {@code nowMs}, where they live (under its organisation when it names one), without the key's
     * or the organisation's: what a tenant's usage and spend views read.
     */
    public static QuotaScope tenantLevel(Tenant tenant, Tier tier, String model, long nowMs) {
        String orgId = tenant.organisation();
        String prefix = orgId == null ? "" : "t:" + tenant.id() + ":";
        List<WindowLimit> windows = new ArrayList<>();
        List<SpendLimit> spends = new ArrayList<>();
        for (WindowLimit w : tier.windowsFor(model)) windows.add(named(prefix, w));
        for (SpendLimit s : SpendLimit.of(tenant.spendUnder(tier), nowMs)) spends.add(named(prefix, s));
        return new QuotaScope(owner(tenant.id(), orgId), tenant.id(), orgId, null, windows, spends);
    }

    /** A tenant's tier windows alone (no model's, no spend), where they live: what the abuse sampler reads. */
    public static QuotaScope tenantWindows(Tenant tenant, Tier tier) {
        String orgId = tenant.organisation();
        String prefix = orgId == null ? "" : "t:" + tenant.id() + ":";
        List<WindowLimit> windows = new ArrayList<>();
        for (WindowLimit w : tier.windows()) windows.add(named(prefix, w));
        return new QuotaScope(owner(tenant.id(), orgId), tenant.id(), orgId, null, windows, List.of());
    }

    /** An organisation's own windows and budgets for their periods as of {@code nowMs}: its usage view. */
    public static QuotaScope organisation(Organisation organisation, long nowMs) {
        List<WindowLimit> windows = new ArrayList<>();
        List<SpendLimit> spends = new ArrayList<>();
        for (WindowLimit w : organisation.windows()) windows.add(named("o:", w));
        for (SpendLimit s : SpendLimit.of(organisation.spend(), nowMs)) spends.add(named("o:", s));
        return new QuotaScope(ORGANISATION_OWNER + organisation.id(), null, organisation.id(), null, windows, spends);
    }

    private static WindowLimit named(String prefix, WindowLimit w) {
        return prefix.isEmpty() ? w : new WindowLimit(prefix + w.name(), w.seconds(), w.tokens(), w.requests());
    }

    private static SpendLimit named(String prefix, SpendLimit s) {
        return prefix.isEmpty() ? s : new SpendLimit(prefix + s.name(), s.period(), s.capMicros(), s.endMs());
    }

    /** The level of a window or spend period name made here. */
    public static Level levelOf(String name) {
        if (name.startsWith("o:")) return new Level(Kind.ORGANISATION, null, name.substring(2));
        if (name.startsWith("t:") || name.startsWith("k:")) {
            int end = name.indexOf(':', 2);
            if (end > 2) {
                return new Level(
                        name.charAt(0) == 't' ? Kind.TENANT : Kind.KEY,
                        name.substring(2, end),
                        name.substring(end + 1));
            }
        }
        return new Level(Kind.TENANT, null, name);
    }

    /** The name as the level knows it: {@code t:acme:minute} → {@code minute}. */
    public static String baseName(String name) {
        return name == null ? null : levelOf(name).base();
    }

    /**
     * The name a caller reads in the headers: the tenant's as it always was ({@code minute}), the
     * key's {@code key-minute}, the organisation's {@code organisation-<window>}.
     */
    public static String publicName(String name) {
        Level l = levelOf(name);
        return switch (l.kind()) {
            case TENANT -> l.base();
            case KEY -> "key-" + l.base();
            case ORGANISATION -> "organisation-" + l.base();
        };
    }
}
