package dev.sluice.gateway.config;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * A tier's {@code spend:} (its budgets in USD per calendar day and month, and the zone the
 * periods turn in), read for {@link TiersYamlParser} with every problem named at its field and
 * line. Amounts are read as decimals, never through a double: {@code 0.1} is 100,000
 * micro-dollars exactly.
 */
final class SpendYaml {
    private static final Set<String> KEYS = TiersSchema.fields("spend");

    private SpendYaml() {}

    /** The tier's budget, {@link SpendBudget#NONE} without {@code spend:} (or when a problem was recorded). */
    static SpendBudget read(YamlNodes y, String tierPath, Map<String, Node> tier) {
        if (!tier.containsKey("spend")) return SpendBudget.NONE;
        String path = tierPath + ".spend";
        Node node = tier.get("spend");
        int before = y.problems().size();
        Map<String, Node> m = y.mapping(path, node);
        y.onlyKeys(path, m, KEYS);
        long day = usd(y, path, m, "usd-per-day");
        long month = usd(y, path, m, "usd-per-month");
        if (node instanceof MappingNode && !m.containsKey("usd-per-day") && !m.containsKey("usd-per-month"))
            y.problem(path, node, "needs usd-per-day or usd-per-month (omit spend to cap no spend)");
        ZoneId zone = SpendBudget.UTC;
        if (m.containsKey("time-zone")) {
            String id = y.string(path, m, "time-zone", "UTC", false).trim();
            try {
                zone = ZoneId.of(id);
            } catch (DateTimeException e) {
                y.problem(
                        path + ".time-zone",
                        m.get("time-zone"),
                        "unknown time zone '" + id + "' (an IANA zone id such as UTC or Europe/Paris)");
            }
        }
        if (y.problems().size() > before) return SpendBudget.NONE;
        return new SpendBudget(day, month, zone);
    }

    /** One budget in USD as micro-dollars; 0 when absent. Above 0, at most USD 1e9, at most six decimals. */
    private static long usd(YamlNodes y, String path, Map<String, Node> m, String key) {
        Node node = m.get(key);
        if (node == null) return 0;
        String where = path + "." + key;
        String raw = node instanceof ScalarNode s ? s.getValue().trim().replace("_", "") : null;
        BigDecimal v;
        try {
            v = new BigDecimal(raw);
        } catch (NumberFormatException | NullPointerException e) {
            y.problem(
                    where,
                    node,
                    "must be an amount in USD such as 1.00, got '"
                            + (raw == null ? node.getNodeId().name() : raw) + "'");
            return 0;
        }
        if (v.signum() <= 0) {
            y.problem(
                    where,
                    node,
                    "must be above 0, got " + v.toPlainString()
                            + " (a budget of 0 would refuse every request: suspend the tenant instead)");
            return 0;
        }
        BigDecimal micros = v.movePointRight(6);
        if (micros.compareTo(BigDecimal.valueOf(SpendBudget.MAX_BUDGET_MICROS)) > 0) {
            y.problem(where, node, "must be at most 1000000000 (USD 1 billion per period), got " + v.toPlainString());
            return 0;
        }
        if (micros.stripTrailingZeros().scale() > 0) {
            y.problem(where, node, "is finer than a micro-dollar (at most 6 decimals), got " + v.toPlainString());
            return 0;
        }
        return micros.longValueExact();
    }
}
