package dev.sluice.gateway.tenant;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import java.util.Objects;

/**
 * A customer of the gateway: its tier by name (resolved against the config in force), its status,
 * its own spend budgets where an operator set them (null: the tier's), and the organisation it
 * belongs to (null: none), whose windows and budgets it shares with the organisation's other tenants.
 */
public record Tenant(String id, String tierName, boolean suspended, SpendBudget spend, String organisation) {
    public Tenant {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tierName, "tierName");
    }

    /** A tenant in no organisation. */
    public Tenant(String id, String tierName, boolean suspended, SpendBudget spend) {
        this(id, tierName, suspended, spend, null);
    }

    /** The same tenant in {@code organisationId} (null: in none). */
    public Tenant inOrganisation(String organisationId) {
        return new Tenant(id, tierName, suspended, spend, organisationId);
    }

    /** A tenant on its tier's spend budgets. */
    public Tenant(String id, String tierName, boolean suspended) {
        this(id, tierName, suspended, null);
    }

    /**
     * The spend budgets this tenant's requests are charged to: its own override where it sets a
     * period (in its own zone), its tier's for a period it leaves out (0).
     */
    public SpendBudget spendUnder(Tier tier) {
        if (spend == null) return tier.spend();
        SpendBudget t = tier.spend();
        return new SpendBudget(
                spend.dayMicros() > 0 ? spend.dayMicros() : t.dayMicros(),
                spend.monthMicros() > 0 ? spend.monthMicros() : t.monthMicros(),
                spend.zone());
    }
}
