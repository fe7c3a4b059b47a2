package dev.sluice.gateway.admin;

import dev.sluice.gateway.admin.OverviewViews.Budget;
import dev.sluice.gateway.admin.OverviewViews.Counts;
import dev.sluice.gateway.admin.OverviewViews.Provider;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.dispatch.Dispatchers;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The overview's {@code providers}: one entry per provider of the tiers document, in its order,
 * with where it is (the host, never the key or the path), the state an operator acts on
 * (healthy, paused by its own 429, failing or probing after failures), its share of the answers
 * and its budgets. Read from the same meters Prometheus scrapes, as the rest of the overview.
 */
final class ProviderOverview {
    static final String BUILT_IN = "built-in simulator";
    /** Totals key prefixes: {@code answers/<status>/<provider>}, {@code retries/<status>/<provider>} (a status never holds '/'). */
    private static final String ANSWERS = "answers/";

    private static final String RETRIES = "retries/";
    /** {@link Dispatchers#CIRCUIT}'s values. */
    private static final String[] CIRCUITS = {"closed", "open", "probing"};

    private ProviderOverview() {}

    /** Adds each provider's answers and retries by status to the totals the overview's window keeps. */
    static void totals(MeterRegistry meters, Map<String, Double> t) {
        byStatus(meters, UpstreamMeters.RESPONSES, ANSWERS, t);
        byStatus(meters, UpstreamMeters.RETRIES, RETRIES, t);
    }

    private static void byStatus(MeterRegistry meters, String counter, String prefix, Map<String, Double> t) {
        for (Counter c : meters.find(counter).counters()) {
            String provider = c.getId().getTag("provider");
            if (provider != null) t.merge(prefix + c.getId().getTag("status") + "/" + provider, c.count(), Double::sum);
        }
    }

    /**
     * @param budgets every budget's view (as in the overview's {@code budgets})
     */
    static List<Provider> list(
            MeterRegistry meters,
            SluiceConfig snapshot,
            Map<String, Double> totals,
            MeterWindow.Delta last,
            List<Budget> budgets) {
        Map<String, Map<String, Long>> lastMinute = byProvider(last.change(), ANSWERS);
        Map<String, Map<String, Long>> sinceStart = byProvider(totals, ANSWERS);
        Map<String, Map<String, Long>> retriedLastMinute = byProvider(last.change(), RETRIES);
        Map<String, Map<String, Long>> retriedSinceStart = byProvider(totals, RETRIES);
        long servedByAll =
                lastMinute.values().stream().mapToLong(ProviderOverview::served).sum();
        List<Provider> out = new ArrayList<>();
        for (ProviderSettings p : snapshot.providers()) {
            List<Budget> own =
                    budgets.stream().filter(b -> p.name().equals(b.provider())).toList();
            long pausedForMs = own.stream().mapToLong(Budget::pausedForMs).max().orElse(0);
            String circuit = circuit(meters, p.name());
            Map<String, Long> answered = lastMinute.getOrDefault(p.name(), Map.of());
            out.add(new Provider(
                    p.name(),
                    host(p.baseUrl()),
                    state(circuit, pausedForMs),
                    circuit,
                    pausedForMs,
                    servedByAll == 0 ? null : AdminViews.rounded((double) served(answered) / servedByAll),
                    new Counts(answered, sinceStart.getOrDefault(p.name(), Map.of())),
                    // A call that fails before its answer and goes on to the route's next provider is a retry
                    // ("failover"), not an answer: it is how a failing provider shows in the counts.
                    new Counts(
                            retriedLastMinute.getOrDefault(p.name(), Map.of()),
                            retriedSinceStart.getOrDefault(p.name(), Map.of())),
                    own));
        }
        return out;
    }

    /** What an operator acts on: a failing provider is skipped, a paused one waits out its own 429. */
    static String state(String circuit, long pausedForMs) {
        if ("open".equals(circuit)) return "failing";
        if ("probing".equals(circuit)) return "probing";
        return pausedForMs > 0 ? "paused" : "healthy";
    }

    /** The circuit's state from its gauge; null where the gateway has none for the provider. */
    private static String circuit(MeterRegistry meters, String provider) {
        Gauge g = meters.find(Dispatchers.CIRCUIT).tag("provider", provider).gauge();
        if (g == null || !Double.isFinite(g.value())) return null;
        int v = (int) Math.round(g.value());
        return v >= 0 && v < CIRCUITS.length ? CIRCUITS[v] : null;
    }

    /**
     * Where the provider is, without what a base URL may carry besides (user info, the API
     * path): its host, and its port when it names one (two local providers differ only there).
     */
    static String host(String baseUrl) {
        if (baseUrl == null || baseUrl.isEmpty()) return BUILT_IN;
        try {
            URI u = URI.create(baseUrl);
            if (u.getHost() == null) return "(no host)";
            return u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort();
        } catch (IllegalArgumentException e) {
            return "(no host)";
        }
    }

    /** Answers the provider served: its 2xx (push-backs, failures and calls without an answer are not traffic it took). */
    static long served(Map<String, Long> byStatus) {
        long n = 0;
        for (Map.Entry<String, Long> e : byStatus.entrySet()) {
            if (e.getKey().length() == 3 && e.getKey().startsWith("2")) n += e.getValue();
        }
        return n;
    }

    private static Map<String, Map<String, Long>> byProvider(Map<String, Double> values, String prefix) {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (!k.startsWith(prefix)) return;
            String rest = k.substring(prefix.length());
            int slash = rest.indexOf('/');
            out.computeIfAbsent(rest.substring(slash + 1), p -> new TreeMap<>())
                    .merge(rest.substring(0, slash), Math.round(v), Long::sum);
        });
        return out;
    }
}
