package dev.sluice.gateway.spend;

import dev.sluice.gateway.quota.SpendUsage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many tenants of each tier are above 80 % of a spend budget, and how many have spent it
 * all, per period: the bounded form of budget utilisation for Prometheus (tier × period × level,
 * never a tenant id). Pure: the budgets' states in, the counts out.
 */
public final class BudgetUtilisation {
    public static final String ABOVE_80 = "above-80";
    public static final String AT_100 = "at-100";
    static final double HIGH = 0.80;

    private final Map<String, Long> counts = new HashMap<>();

    static String key(String tier, String period, String level) {
        return tier + "|" + period + "|" + level;
    }

    /** One tenant's budgets now. */
    public void add(String tier, List<SpendUsage> spends) {
        for (SpendUsage s : spends) {
            if (s.limitMicros() <= 0) continue;
            if (s.utilisation() > HIGH) counts.merge(key(tier, s.period(), ABOVE_80), 1L, Long::sum);
            if (s.usedMicros() >= s.limitMicros()) counts.merge(key(tier, s.period(), AT_100), 1L, Long::sum);
        }
    }

    public long count(String tier, String period, String level) {
        return counts.getOrDefault(key(tier, period, level), 0L);
    }
}
