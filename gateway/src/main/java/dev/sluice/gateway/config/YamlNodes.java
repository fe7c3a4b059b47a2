package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Typed reads over SnakeYAML's node tree that record a {@link ConfigProblem} (field path and
 * line) instead of throwing, so one pass reports every mistake in a document.
 */
final class YamlNodes {
    private final List<ConfigProblem> problems = new ArrayList<>();

    List<ConfigProblem> problems() {
        return problems;
    }

    void problem(String path, Node node, String message) {
        problems.add(
                new ConfigProblem(path, node == null ? 0 : node.getStartMark().getLine() + 1, message));
    }

    static int line(Node node) {
        return node.getStartMark().getLine() + 1;
    }

    /** The entries of a mapping in document order; a problem (and an empty map) if the node is not a mapping. */
    Map<String, Node> mapping(String path, Node node) {
        Map<String, Node> out = new LinkedHashMap<>();
        if (!(node instanceof MappingNode map)) {
            problem(path, node, "must be a mapping");
            return out;
        }
        for (NodeTuple t : map.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode key) {
                // SnakeYAML's composer keeps duplicates; a second value must not silently win.
                if (out.putIfAbsent(key.getValue(), t.getValueNode()) != null) {
                    problem(path + "." + key.getValue(), key, "duplicate key");
                }
            } else {
                problem(path, t.getKeyNode(), "keys must be plain names");
            }
        }
        return out;
    }

    /** Flags keys not in {@code allowed}: a misspelt limit must not silently fall back to a default. */
    void onlyKeys(String path, Map<String, Node> map, Set<String> allowed) {
        for (Map.Entry<String, Node> e : map.entrySet()) {
            if (!allowed.contains(e.getKey())) {
                problem(
                        path + "." + e.getKey(),
                        e.getValue(),
                        "unknown field (expected one of " + new TreeSet<>(allowed) + ")");
            }
        }
    }

    List<Node> sequence(String path, Node node) {
        if (node instanceof SequenceNode seq) return seq.getValue();
        problem(path, node, "must be a list");
        return List.of();
    }

    String string(String path, Map<String, Node> map, String key, String fallback, boolean required) {
        Node node = map.get(key);
        if (node == null) {
            if (required) problem(path + "." + key, null, "is required");
            return fallback;
        }
        if (!(node instanceof ScalarNode s)) {
            problem(path + "." + key, node, "must be a single value");
            return fallback;
        }
        return s.getValue();
    }

    long positiveLong(String path, Map<String, Node> map, String key, Long fallback) {
        String where = path + "." + key;
        Node node = map.get(key);
        if (node == null) {
            if (fallback == null) problem(where, null, "is required");
            return fallback == null ? 1 : fallback;
        }
        String raw = node instanceof ScalarNode s ? s.getValue().replace("_", "") : null;
        try {
            long v = Long.parseLong(raw);
            if (v <= 0) problem(where, node, "must be a positive whole number, got " + v);
            return Math.max(v, 1);
        } catch (NumberFormatException | NullPointerException e) {
            problem(where, node, "must be a positive whole number, got '" + describe(node) + "'");
            return 1;
        }
    }

    double number(String path, Map<String, Node> map, String key, Double fallback, double min, double max) {
        String where = path + "." + key;
        Node node = map.get(key);
        if (node == null) {
            if (fallback == null) problem(where, null, "is required");
            return fallback == null ? min : fallback;
        }
        try {
            double v = Double.parseDouble(((ScalarNode) node).getValue());
            if (!(v >= min && v <= max)) {
                problem(where, node, "must be between " + fmt(min) + " and " + fmt(max) + ", got " + fmt(v));
                return Math.min(Math.max(v, min), max);
            }
            return v;
        } catch (NumberFormatException | ClassCastException e) {
            problem(where, node, "must be a number, got '" + describe(node) + "'");
            return fallback == null ? min : fallback;
        }
    }

    boolean bool(String path, Map<String, Node> map, String key, boolean fallback) {
        Node node = map.get(key);
        if (node == null) return fallback;
        String v = node instanceof ScalarNode s ? s.getValue() : "";
        if (v.equals("true")) return true;
        if (v.equals("false")) return false;
        problem(path + "." + key, node, "must be true or false, got '" + describe(node) + "'");
        return fallback;
    }

    private static String describe(Node node) {
        return node instanceof ScalarNode s ? s.getValue() : node.getNodeId().name();
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
