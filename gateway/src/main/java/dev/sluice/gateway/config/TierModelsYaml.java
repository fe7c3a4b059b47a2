package dev.sluice.gateway.config;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A tier's {@code models:} (the models it may name) and {@code model-limits:} (a token window per
 * model), read for {@link TiersYamlParser} with every problem named at its field and line.
 */
final class TierModelsYaml {
    private static final Set<String> LIMIT_KEYS = TiersSchema.fields("model-limit");

    private TierModelsYaml() {}

    /**
     * @param m         the tier's mapping
     * @param downgrade the tier's downgrade map as read: with a list, each target must be on it
     */
    static TierModels read(YamlNodes y, String path, Map<String, Node> m, Map<String, String> downgrade) {
        Set<String> allowed = m.containsKey("models") ? allowed(y, path + ".models", m.get("models")) : null;
        Map<String, TierModels.ModelWindow> limits = new LinkedHashMap<>();
        if (m.containsKey("model-limits")) {
            String lp = path + ".model-limits";
            Map<String, Node> entries = y.mapping(lp, m.get("model-limits"));
            if (entries.isEmpty() && m.get("model-limits") instanceof MappingNode)
                y.problem(lp, m.get("model-limits"), "lists no model (omit it to keep no per-model window)");
            entries.forEach((model, node) -> {
                String at = lp + "." + model;
                Map<String, Node> w = y.mapping(at, node);
                y.onlyKeys(at, w, LIMIT_KEYS);
                long tokens = y.positiveLong(at, w, "tokens-per-minute", null);
                long requests = y.positiveLong(at, w, "requests-per-minute", Long.MAX_VALUE);
                if (allowed != null && !allowed.contains(model))
                    y.problem(
                            at,
                            node,
                            "'" + model + "' is not in the tier's models " + allowed
                                    + ": a window for a model the tier may not use");
                limits.put(model, new TierModels.ModelWindow(tokens, requests));
            });
        }
        if (allowed != null && m.get("downgrade") instanceof MappingNode) {
            Map<String, Node> targets = y.mapping(path + ".downgrade", m.get("downgrade"));
            downgrade.forEach((from, to) -> {
                if (!allowed.contains(to))
                    y.problem(
                            path + ".downgrade." + from,
                            targets.get(from),
                            "downgrades to '" + to
                                    + "', which is not in the tier's models " + allowed
                                    + " (list it there, or downgrade to a model the tier may use)");
            });
        }
        // An inconsistent pair has had its problem recorded: the tier is dropped, this value never used.
        boolean consistent = allowed == null || (!allowed.isEmpty() && allowed.containsAll(limits.keySet()));
        return consistent ? new TierModels(allowed, limits) : TierModels.ALL;
    }

    private static Set<String> allowed(YamlNodes y, String path, Node node) {
        List<Node> items = y.sequence(path, node);
        Set<String> out = new LinkedHashSet<>();
        if (items.isEmpty() && node instanceof SequenceNode)
            y.problem(path, node, "lists no model, which would refuse every request (omit it to allow every model)");
        for (int i = 0; i < items.size(); i++) {
            Node n = items.get(i);
            String at = path + "[" + i + "]";
            String model = n instanceof ScalarNode s ? s.getValue().trim() : "";
            if (model.isEmpty()) y.problem(at, n, "must name a model");
            else if (model.equals(ProviderSettings.ANY_MODEL))
                y.problem(at, n, "\"*\" is not a model: omit models to allow every model");
            else if (!out.add(model)) y.problem(at, n, "names '" + model + "' twice");
        }
        return out;
    }
}
