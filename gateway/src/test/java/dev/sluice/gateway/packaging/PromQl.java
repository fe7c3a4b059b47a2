package dev.sluice.gateway.packaging;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names and label names a PromQL expression (or a Grafana query using
 * {@code $variables} and {@code label_values()}) refers to. Not a PromQL parser: enough for
 * the expressions of the dashboard and the alert rules, and strict where it matters (every
 * identifier that is not a function, keyword or label is taken as a metric name).
 */
final class PromQl {
    private static final Set<String> KEYWORDS = Set.of(
            "and",
            "or",
            "unless",
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "offset",
            "bool",
            "inf",
            "nan");
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)?\\s*\\{([^}]*)}");
    private static final Pattern MATCHER =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern LABEL_VALUES =
            Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    /** What one expression uses: metric names, each with the label names matched on it, and the grouping labels. */
    record Use(Map<String, Set<String>> metrics, Set<String> groupingLabels) {}

    private PromQl() {}

    static Use parse(String expression) {
        String expr = expression.replaceAll("\\$__\\w+", "5m").replaceAll("\\$\\{?\\w+}?", "x");
        Map<String, Set<String>> metrics = new LinkedHashMap<>();
        Set<String> grouping = new LinkedHashSet<>();

        Matcher lv = LABEL_VALUES.matcher(expr);
        while (lv.find())
            metrics.computeIfAbsent(lv.group(1), k -> new LinkedHashSet<>()).add(lv.group(2));
        expr = LABEL_VALUES.matcher(expr).replaceAll(" ");

        Matcher sel = SELECTOR.matcher(expr);
        StringBuilder rest = new StringBuilder();
        while (sel.find()) {
            Set<String> labels = new LinkedHashSet<>();
            Matcher m = MATCHER.matcher(sel.group(2));
            while (m.find()) labels.add(m.group(1));
            if (sel.group(1) == null)
                throw new IllegalArgumentException("a selector without a metric name: " + expression);
            metrics.computeIfAbsent(sel.group(1), k -> new LinkedHashSet<>()).addAll(labels);
            sel.appendReplacement(rest, " ");
        }
        sel.appendTail(rest);
        expr = rest.toString();

        Matcher g = GROUPING.matcher(expr);
        while (g.find()) {
            for (String label : g.group(2).split(",")) if (!label.isBlank()) grouping.add(label.strip());
        }
        expr = GROUPING.matcher(expr).replaceAll(" ");
        expr = expr.replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\boffset\\s+\\w+", " ")
                .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ");
        expr = expr.replaceAll("\\b\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\b", " ");

        Matcher id = IDENTIFIER.matcher(expr);
        while (id.find()) {
            String name = id.group();
            boolean function = expr.substring(id.end()).matches("(?s)\\s*\\(.*");
            if (function || KEYWORDS.contains(name.toLowerCase())) continue;
            metrics.computeIfAbsent(name, k -> new LinkedHashSet<>());
        }
        return new Use(metrics, grouping);
    }
}
