package dev.sluice.gateway.config;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Reads tiers.yaml into a {@link SluiceConfig}. It walks SnakeYAML's node tree rather than
 * binding to classes so that each problem names the field path and the line, and so that
 * every problem in a document is reported at once (the admin API shows them all). The
 * providers and routes are read by {@link ProvidersYaml}.
 */
public final class TiersYamlParser {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    /** Tier and tenant names: lower-case letters, digits, ".", "_" or "-", at most 64. */
    public static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    // Each mapping's known fields are tiers.schema.json's, the one list of them (TiersSchema).
    private static final Set<String> ROOT_KEYS = TiersSchema.root();
    private static final Set<String> TIER_KEYS = TiersSchema.fields("tier");
    /** A window is kept as 60 slots in milliseconds: a year is plenty, and nothing near it can overflow. */
    static final long MAX_WINDOW_SECONDS = 366L * 24 * 3600;

    private static final Set<String> WINDOW_KEYS = TiersSchema.fields("window");
    private static final Set<String> LADDER_KEYS = TiersSchema.fields("ladder");
    private static final Set<String> ABUSE_KEYS = TiersSchema.fields("abuse");
    private static final Set<String> TENANT_KEYS = TiersSchema.fields("demo-tenant");

    private TiersYamlParser() {}

    /** Parses and validates; throws {@link ConfigException} listing every problem. */
    public static SluiceConfig parse(String source, String yaml) {
        Node root;
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setMaxAliasesForCollections(10); // a config file has no use for alias bombs
            root = new Yaml(options).compose(new StringReader(yaml));
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
            throw new ConfigException(source, List.of(new ConfigProblem("(document)", line, e.getProblem())));
        } catch (YAMLException e) {
            throw new ConfigException(source, List.of(new ConfigProblem("(document)", 0, e.getMessage())));
        }
        if (root == null) {
            throw new ConfigException(source, List.of(new ConfigProblem("(document)", 0, "is empty")));
        }
        YamlNodes y = new YamlNodes();
        SluiceConfig config = read(y, root);
        if (!y.problems().isEmpty()) throw new ConfigException(source, y.problems());
        return config;
    }

    private static SluiceConfig read(YamlNodes y, Node root) {
        Map<String, Node> doc = y.mapping("(document)", root);
        y.onlyKeys("(root)", doc, ROOT_KEYS);

        Map<String, Tier> tiers = new LinkedHashMap<>();
        if (!doc.containsKey("tiers")) y.problem("tiers", null, "is required: at least one tier");
        else {
            Map<String, Node> tierNodes = y.mapping("tiers", doc.get("tiers"));
            if (tierNodes.isEmpty()) y.problem("tiers", doc.get("tiers"), "needs at least one tier");
            tierNodes.forEach((name, node) -> {
                Tier t = tier(y, name, node);
                if (t != null) tiers.put(name, t);
            });
        }

        LadderSettings ladder = doc.containsKey("ladder") ? ladder(y, doc.get("ladder")) : LadderSettings.defaults();
        AbuseSettings abuse = doc.containsKey("abuse") ? abuse(y, doc.get("abuse")) : AbuseSettings.defaults();

        List<ProviderSettings> providers = ProvidersYaml.providers(y, doc);

        Map<String, List<String>> routes =
                doc.containsKey("routes") && y.problems().isEmpty()
                        ? ProvidersYaml.routes(y, doc.get("routes"), providers)
                        : Map.of();
        if (y.problems().isEmpty()) servedDowngrades(y, doc.get("tiers"), tiers, providers, routes);

        List<DemoTenant> tenants = new ArrayList<>();
        if (doc.containsKey("demo-tenants")) {
            List<Node> nodes = y.sequence("demo-tenants", doc.get("demo-tenants"));
            Set<String> ids = new HashSet<>();
            Set<String> hashes = new HashSet<>();
            for (int i = 0; i < nodes.size(); i++) {
                String path = "demo-tenants[" + i + "]";
                DemoTenant t = demoTenant(y, path, nodes.get(i), tiers);
                if (t == null) continue;
                if (!ids.add(t.id())) y.problem(path + ".id", nodes.get(i), "duplicate tenant id '" + t.id() + "'");
                if (!hashes.add(t.keySha256()))
                    y.problem(path + ".key-sha256", nodes.get(i), "the same key is given to two tenants");
                tenants.add(t);
            }
        }
        if (!y.problems().isEmpty()) return null;
        return new SluiceConfig(tiers, ladder, abuse, providers, routes, tenants);
    }

    /** A downgrade's target is routed like any model: some provider must serve it, or every downgrade would be a 404. */
    private static void servedDowngrades(
            YamlNodes y,
            Node tiersNode,
            Map<String, Tier> tiers,
            List<ProviderSettings> providers,
            Map<String, List<String>> routes) {
        SluiceConfig probe = new SluiceConfig(
                tiers, LadderSettings.defaults(), AbuseSettings.defaults(), providers, routes, List.of());
        Map<String, Node> tierNodes = y.mapping("tiers", tiersNode);
        tiers.forEach((name, tier) -> tier.downgrade().forEach((from, to) -> {
            if (!probe.route(to).isEmpty()) return;
            Node at = y.mapping("tiers." + name, tierNodes.get(name)).get("downgrade");
            Node target = at == null
                    ? null
                    : y.mapping("tiers." + name + ".downgrade", at).get(from);
            y.problem(
                    "tiers." + name + ".downgrade." + from,
                    target,
                    "no provider serves '" + to + "' (list it under a provider's models, or give a provider \"*\")");
        }));
    }

    private static Tier tier(YamlNodes y, String name, Node node) {
        String path = "tiers." + name;
        if (!NAME.matcher(name).matches())
            y.problem(path, node, "tier names are lower-case letters, digits, '.', '_' or '-'");
        Map<String, Node> m = y.mapping(path, node);
        y.onlyKeys(path, m, TIER_KEYS);
        int before = y.problems().size();
        long tpm = y.positiveLong(path, m, "tokens-per-minute", null);
        long rpm = y.positiveLong(path, m, "requests-per-minute", null);
        double burst = y.number(path, m, "burst-allowance", 1.0, 1.0, 100.0);
        long priority = y.positiveLong(path, m, "priority", null);
        if (priority > 100)
            y.problem(path + ".priority", m.get("priority"), "must be between 1 and 100 (1 is served first)");
        long defaultMax = y.positiveLong(path, m, "default-max-tokens", 1024L);
        boolean allowNoDowngrade = y.bool(path, m, "allow-no-downgrade", false);

        List<WindowLimit> windows = new ArrayList<>();
        if (m.containsKey("windows")) {
            List<Node> ws = y.sequence(path + ".windows", m.get("windows"));
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < ws.size(); i++) {
                String wp = path + ".windows[" + i + "]";
                Map<String, Node> w = y.mapping(wp, ws.get(i));
                y.onlyKeys(wp, w, WINDOW_KEYS);
                String wname = y.string(wp, w, "name", "window" + i, true);
                long seconds = y.positiveLong(wp, w, "seconds", null);
                if (seconds <= 60)
                    y.problem(
                            wp + ".seconds",
                            w.get("seconds"),
                            "a longer window must be longer than 60 s, got " + seconds);
                else if (seconds > MAX_WINDOW_SECONDS) {
                    y.problem(
                            wp + ".seconds",
                            w.get("seconds"),
                            "must be at most " + MAX_WINDOW_SECONDS + " (366 days), got " + seconds);
                    seconds = MAX_WINDOW_SECONDS; // keep checking the rest with a value that cannot overflow
                } else if (seconds % 60 != 0)
                    y.problem(wp + ".seconds", w.get("seconds"), "must be a whole number of minutes, got " + seconds);
                long tokens = y.positiveLong(wp, w, "tokens", times(tpm, seconds / 60));
                long requests = y.positiveLong(wp, w, "requests", times(rpm, seconds / 60));
                if (!seen.add(wname) || wname.equals("minute"))
                    y.problem(wp + ".name", w.get("name"), "duplicate window name '" + wname + "'");
                else if (TierModels.modelOf(wname) != null)
                    y.problem(
                            wp + ".name",
                            w.get("name"),
                            "'" + TierModels.WINDOW_PREFIX + "' names the per-model windows");
                else if (wname.contains(":"))
                    y.problem(
                            wp + ".name",
                            w.get("name"),
                            "must not contain ':' (it prefixes the windows of keys and organisations)");
                if (tokens < tpm)
                    y.problem(
                            wp + ".tokens",
                            w.get("tokens"),
                            "must be at least tokens-per-minute (" + tpm + "), got " + tokens);
                if (requests < rpm)
                    y.problem(
                            wp + ".requests",
                            w.get("requests"),
                            "must be at least requests-per-minute (" + rpm + "), got " + requests);
                if (seconds > 60)
                    windows.add(new WindowLimit(wname, seconds, Math.max(tokens, 1), Math.max(requests, 1)));
            }
        }
        // Unless a tier says otherwise, its hour holds 60 × tokens-per-minute: the burst buys bursts, not rate.
        if (windows.stream().noneMatch(w -> w.seconds() == 3600)) {
            windows.add(0, new WindowLimit("hour", 3600, times(tpm, 60), times(rpm, 60)));
        }
        windows.sort(Comparator.comparingLong(WindowLimit::seconds));

        Map<String, String> downgrade = new LinkedHashMap<>();
        if (m.containsKey("downgrade")) {
            y.mapping(path + ".downgrade", m.get("downgrade")).forEach((from, to) -> {
                String target = to instanceof ScalarNode s ? s.getValue() : "";
                if (target.isBlank()) y.problem(path + ".downgrade." + from, to, "must name the model to downgrade to");
                else if (target.equals(from))
                    y.problem(path + ".downgrade." + from, to, "downgrades a model to itself");
                else downgrade.put(from, target);
            });
        }

        RedisDownPolicy redisDown = RedisDownPolicy.FAIL_OPEN;
        String policy = y.string(path, m, "redis-down", "fail-open", false);
        try {
            redisDown = RedisDownPolicy.valueOf(policy.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            y.problem(
                    path + ".redis-down",
                    m.get("redis-down"),
                    "must be fail-open or fail-closed, got '" + policy + "'");
        }
        EndpointAccess endpoints = m.containsKey("endpoints")
                ? EndpointsYaml.read(y, path + ".endpoints", m.get("endpoints"))
                : EndpointAccess.DEFAULT;
        TierModels models = TierModelsYaml.read(y, path, m, downgrade);
        SpendBudget spend = SpendYaml.read(y, path, m);
        if (y.problems().size() > before) return null;
        return new Tier(
                name,
                tpm,
                rpm,
                burst,
                (int) priority,
                defaultMax,
                windows,
                downgrade,
                allowNoDowngrade,
                redisDown,
                endpoints,
                models,
                spend);
    }

    private static LadderSettings ladder(YamlNodes y, Node node) {
        Map<String, Node> m = y.mapping("ladder", node);
        y.onlyKeys("ladder", m, LADDER_KEYS);
        LadderSettings d = LadderSettings.defaults();
        double above = y.number("ladder", m, "downgrade-above", d.downgradeAbove(), 0.01, 1.0);
        long min = (long) y.number("ladder", m, "delay-min-ms", (double) d.delayMinMs(), 0, 60_000);
        long max = (long) y.number("ladder", m, "delay-max-ms", (double) d.delayMaxMs(), 0, 60_000);
        long longest = (long) y.number("ladder", m, "max-delay-ms", (double) d.maxDelayMs(), 0, 60_000);
        int held = (int) y.number("ladder", m, "max-held", (double) d.maxHeld(), 0, 1_000_000);
        if (max < min) {
            y.problem(
                    "ladder.delay-max-ms",
                    m.get("delay-max-ms"),
                    "must be at least delay-min-ms (" + min + "), got " + max);
            max = min;
        }
        return new LadderSettings(above, min, max, longest, held);
    }

    private static AbuseSettings abuse(YamlNodes y, Node node) {
        Map<String, Node> m = y.mapping("abuse", node);
        y.onlyKeys("abuse", m, ABUSE_KEYS);
        AbuseSettings d = AbuseSettings.defaults();
        double threshold = y.number("abuse", m, "threshold", d.threshold(), 0.01, 1.0);
        long minutes = y.positiveLong("abuse", m, "consecutive-minutes", (long) d.consecutiveMinutes());
        long hours = y.positiveLong("abuse", m, "history-hours", (long) d.historyHours());
        if (hours < 24)
            y.problem("abuse.history-hours", m.get("history-hours"), "must keep at least 24 hours, got " + hours);
        if (minutes > hours * 60)
            y.problem("abuse.consecutive-minutes", m.get("consecutive-minutes"), "is longer than the history kept");
        return new AbuseSettings(
                threshold, (int) Math.min(minutes, 100_000), (int) Math.min(Math.max(hours, 24), 100_000));
    }

    private static DemoTenant demoTenant(YamlNodes y, String path, Node node, Map<String, Tier> tiers) {
        Map<String, Node> m = y.mapping(path, node);
        y.onlyKeys(path, m, TENANT_KEYS);
        int before = y.problems().size();
        String id = y.string(path, m, "id", "", true);
        if (!id.isEmpty() && !NAME.matcher(id).matches())
            y.problem(path + ".id", m.get("id"), "tenant ids are lower-case letters, digits, '.', '_' or '-'");
        String tier = y.string(path, m, "tier", "", true);
        if (!tier.isEmpty() && !tiers.isEmpty() && !tiers.containsKey(tier)) {
            y.problem(
                    path + ".tier",
                    m.get("tier"),
                    "unknown tier '" + tier + "' (known: " + String.join(", ", tiers.keySet()) + ")");
        }
        String hash = y.string(path, m, "key-sha256", "", true).toLowerCase(Locale.ROOT);
        if (m.containsKey("key-sha256") && !SHA256_HEX.matcher(hash).matches()) {
            y.problem(
                    path + ".key-sha256",
                    m.get("key-sha256"),
                    "must be the key's SHA-256 as 64 hex digits (never the key itself)");
        }
        boolean suspended = y.bool(path, m, "suspended", false);
        if (y.problems().size() > before) return null;
        return new DemoTenant(id, tier, hash, suspended);
    }

    /** A default cap derived from a per-minute one: saturates, since a hostile or careless cap near 2^63 must not wrap. */
    static long times(long perMinute, long minutes) {
        try {
            return Math.multiplyExact(perMinute, minutes);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
