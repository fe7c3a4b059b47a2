package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The {@code providers:} and {@code routes:} sections of tiers.yaml: who serves which model at
 * what limits, and in which order to try them. Problems go to the {@link YamlNodes} passed in,
 * named by field path and line like the rest of the document.
 */
final class ProvidersYaml {
    private static final Pattern PROVIDER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    /** The only environment variables a provider's key may be read from. */
    static final String PROVIDER_KEY_ENV_PREFIX = "SLUICE_PROVIDER_";

    private static final Set<String> PROVIDER_KEYS = TiersSchema.fields("provider");
    private static final Set<String> MODEL_KEYS = TiersSchema.fields("model");

    private ProvidersYaml() {}

    /** {@code providers:}, required and non-empty, each name once. */
    static List<ProviderSettings> providers(YamlNodes y, Map<String, Node> doc) {
        List<ProviderSettings> providers = new ArrayList<>();
        if (!doc.containsKey("providers")) y.problem("providers", null, "is required: at least one provider");
        else {
            List<Node> nodes = y.sequence("providers", doc.get("providers"));
            if (nodes.isEmpty()) y.problem("providers", doc.get("providers"), "needs at least one provider");
            Set<String> names = new HashSet<>();
            for (int i = 0; i < nodes.size(); i++) {
                ProviderSettings p = provider(y, "providers[" + i + "]", nodes.get(i));
                if (p != null && !names.add(p.name()))
                    y.problem("providers[" + i + "].name", nodes.get(i), "duplicate provider '" + p.name() + "'");
                if (p != null) providers.add(p);
            }
        }
        return providers;
    }

    /**
     * {@code routes:} model → the providers to try, in order. Every name must be a provider that
     * serves the model (lists it, or "*"): a route to a provider without limits for it could not
     * be budgeted. Checked once the providers are known, so each problem names its line.
     */
    static Map<String, List<String>> routes(YamlNodes y, Node node, List<ProviderSettings> providers) {
        Map<String, List<String>> routes = new LinkedHashMap<>();
        Map<String, ProviderSettings> byName = new LinkedHashMap<>();
        providers.forEach(p -> byName.put(p.name(), p));
        y.mapping("routes", node).forEach((model, listNode) -> {
            String path = "routes." + model;
            if (model.equals(ProviderSettings.ANY_MODEL)) {
                y.problem(
                        path,
                        listNode,
                        "a route names one model; a model without a route goes to the providers that serve it, in document order");
                return;
            }
            List<Node> names = y.sequence(path, listNode);
            if (names.isEmpty() && listNode instanceof SequenceNode) {
                y.problem(path, listNode, "names no provider: list at least one, in the order to try them");
            }
            List<String> route = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                Node n = names.get(i);
                String at = path + "[" + i + "]";
                String name = n instanceof ScalarNode sc ? sc.getValue() : "";
                ProviderSettings p = byName.get(name);
                if (p == null) {
                    y.problem(
                            at,
                            n,
                            "unknown provider '" + name + "' (known: " + String.join(", ", byName.keySet()) + ")");
                } else if (route.contains(name)) {
                    y.problem(at, n, "names provider '" + name + "' twice");
                } else if (!p.serves(model)) {
                    y.problem(
                            at,
                            n,
                            "provider '" + name + "' has no limits for '" + model
                                    + "' (list it under its models, or \"*\")");
                } else {
                    route.add(name);
                }
            }
            routes.put(model, route);
        });
        return routes;
    }

    private static ProviderSettings provider(YamlNodes y, String path, Node node) {
        Map<String, Node> m = y.mapping(path, node);
        y.onlyKeys(path, m, PROVIDER_KEYS);
        int before = y.problems().size();
        String name = y.string(path, m, "name", "provider", true);
        if (!PROVIDER_NAME.matcher(name).matches()) {
            // It is a metric label, a budget key's prefix (provider:model) and the X-Sluice-Provider header's value.
            y.problem(
                    path + ".name",
                    m.get("name"),
                    "provider names are letters, digits, '.', '_' or '-' (at most 64), got '" + name + "'");
        }
        String baseUrl = y.string(path, m, "base-url", "", false).trim();
        if (!baseUrl.isEmpty() && !(baseUrl.startsWith("http://") || baseUrl.startsWith("https://"))) {
            y.problem(
                    path + ".base-url",
                    m.get("base-url"),
                    "must start with http:// or https://, got '" + baseUrl + "'");
        }
        String keyEnv = y.string(path, m, "api-key-env", "", false);
        if (!keyEnv.isEmpty() && !keyEnv.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            y.problem(
                    path + ".api-key-env",
                    m.get("api-key-env"),
                    "must name an environment variable (the key itself never goes in this file)");
        } else if (!keyEnv.isEmpty() && !keyEnv.startsWith(PROVIDER_KEY_ENV_PREFIX)) {
            // The key is sent to base-url as a Bearer token: naming any variable would let whoever
            // edits this document (an admin, over the API) read SLUICE_ADMIN_PASSWORD or a Redis URL.
            y.problem(
                    path + ".api-key-env",
                    m.get("api-key-env"),
                    "must start with " + PROVIDER_KEY_ENV_PREFIX + " (only provider keys may be sent upstream), got '"
                            + keyEnv + "'");
        }
        double headroom = y.number(path, m, "headroom", 1.0, 0.01, 1.0);
        Map<String, ModelLimits> models = new LinkedHashMap<>();
        Map<String, String> upstreamModels = new LinkedHashMap<>();
        if (!m.containsKey("models"))
            y.problem(path + ".models", node, "is required: the provider's limits per model (\"*\" for any)");
        else
            y.mapping(path + ".models", m.get("models")).forEach((model, mn) -> {
                String mp = path + ".models." + model;
                Map<String, Node> lm = y.mapping(mp, mn);
                y.onlyKeys(mp, lm, MODEL_KEYS);
                long rpm = y.positiveLong(mp, lm, "requests-per-minute", null);
                // Input and output may be metered apart (Anthropic's ITPM, OTPM), beside or instead of the total.
                long tpm = y.positiveLong(mp, lm, "tokens-per-minute", 0L);
                long itpm = y.positiveLong(mp, lm, "input-tokens-per-minute", 0L);
                long otpm = y.positiveLong(mp, lm, "output-tokens-per-minute", 0L);
                if (tpm == 0 && itpm == 0 && otpm == 0) {
                    y.problem(
                            mp + ".tokens-per-minute",
                            mn,
                            "is required (or input-tokens-per-minute, output-tokens-per-minute)");
                }
                long inFlight = y.positiveLong(mp, lm, "max-in-flight", null);
                double price = y.number(mp, lm, "price-per-million-tokens", 0.0, 0.0, 1_000_000.0);
                // Input and output may be priced apart; a split price wins over the single one for its side.
                double inPrice = y.number(mp, lm, "price-per-million-input-tokens", price, 0.0, 1_000_000.0);
                double outPrice = y.number(mp, lm, "price-per-million-output-tokens", price, 0.0, 1_000_000.0);
                if (lm.containsKey("upstream-model")) {
                    String upstream =
                            y.string(mp, lm, "upstream-model", "", false).trim();
                    if (model.equals(ProviderSettings.ANY_MODEL)) {
                        y.problem(
                                mp + ".upstream-model",
                                lm.get("upstream-model"),
                                "would send every model under one name: give it per model");
                    } else if (upstream.isEmpty()) {
                        y.problem(
                                mp + ".upstream-model",
                                lm.get("upstream-model"),
                                "must name the provider's model or deployment");
                    } else {
                        upstreamModels.put(model, upstream);
                    }
                }
                if (tpm > 0 || itpm > 0 || otpm > 0) {
                    models.put(
                            model,
                            new ModelLimits(
                                    rpm,
                                    tpm,
                                    (int) Math.min(inFlight, Integer.MAX_VALUE),
                                    price,
                                    itpm,
                                    otpm,
                                    inPrice,
                                    outPrice));
                }
            });
        if (y.problems().size() > before) return null;
        return new ProviderSettings(name, baseUrl, keyEnv, headroom, models, upstreamModels);
    }
}
