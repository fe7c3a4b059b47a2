package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.OpenFlagsGauge;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.dispatch.DispatcherMeters;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import dev.sluice.gateway.support.Periodic;
import dev.sluice.gateway.usage.SettleFilter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * {@code GET /admin/api/overview}: what this replica's request path and provider queue are
 * doing, read from its own Micrometer meters (the ones Prometheus scrapes), so the page and
 * the dashboards never disagree. Counters are per replica; the budget utilisation is the
 * shared budget's, fleet-wide. "Last minute" comes from snapshots of the counters taken every
 * few seconds ({@link MeterWindow}). Each provider's part (state, share, budgets) is
 * {@link ProviderOverview}'s.
 */
final class OverviewHandler {
    /** The stages always listed, at zero when none happened: the ones the tenant's usage series counts. */
    static final List<String> MAIN_STAGES =
            Stage.SERIES.stream().map(Stage::label).toList();

    private static final String DECISIONS = "decisions/";
    private static final String UPSTREAM = "upstream/";
    private static final String WAIT = "wait/";

    private final MeterRegistry meters;
    private final ConfigRegistry config;
    private final Clock clock;
    private final MeterWindow window;
    private final Instant startedAt;
    private final Periodic ticking = new Periodic("overview snapshot", () -> Mono.fromRunnable(this::record));

    OverviewHandler(MeterRegistry meters, ConfigRegistry config, Clock clock, Duration window) {
        this.meters = meters;
        this.config = config;
        this.clock = clock;
        this.window = new MeterWindow(window.toMillis());
        this.startedAt =
                Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());
    }

    /** Snapshots the counters every {@code every}; cheap (a few dozen meters), and stopped with the context. */
    void start(Duration every) {
        record();
        ticking.start(every, every);
    }

    void stop() {
        ticking.stop();
    }

    void record() {
        window.record(clock.millis(), totals());
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return Mono.fromCallable(this::overview)
                .flatMap(body -> ServerResponse.ok()
                        .header(HttpHeaders.CACHE_CONTROL, "no-store")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(body));
    }

    Map<String, Object> overview() {
        long now = clock.millis();
        Map<String, Double> totals = totals();
        MeterWindow.Delta last = window.since(now, totals);
        SluiceConfig snapshot = config.current();

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", Instant.ofEpochMilli(now).toString());
        m.put("startedAt", startedAt.toString());
        m.put("windowSeconds", window.windowMs() / 1000);
        m.put("coveredSeconds", Math.round(last.coveredMs() / 1000.0));

        Map<String, Object> decisions = new LinkedHashMap<>();
        decisions.put("lastMinute", prefixed(last.change(), DECISIONS, MAIN_STAGES));
        decisions.put("sinceStart", prefixed(totals, DECISIONS, MAIN_STAGES));
        m.put("decisions", decisions);

        TreeSet<String> budgets = new TreeSet<>();
        for (Gauge g : meters.find(DispatcherMeters.IN_FLIGHT).gauges())
            budgets.add(g.getId().getTag("budget"));
        m.put("queueWaitP95Ms", waitP95(totals, last, ""));
        m.put("waitEstimate", waitEstimate(null));

        List<Map<String, Object>> budgetViews = new ArrayList<>();
        for (String b : budgets) budgetViews.add(budget(b, totals, last, snapshot));
        m.put("budgets", budgetViews);

        Map<String, Object> spend = new LinkedHashMap<>();
        spend.put("usdLastMinute", round(last.get("spend"), 6));
        spend.put("usdSinceStart", round(totals.getOrDefault("spend", 0.0), 6));
        spend.put("tokensLastMinute", Math.round(last.get("tokens")));
        spend.put("tokensSinceStart", Math.round(totals.getOrDefault("tokens", 0.0)));
        spend.put("priceSource", priceSource(snapshot));
        m.put("spend", spend);

        Map<String, Object> upstream = new LinkedHashMap<>();
        upstream.put("lastMinute", prefixed(last.change(), UPSTREAM, List.of()));
        upstream.put("sinceStart", prefixed(totals, UPSTREAM, List.of()));
        m.put("upstream", upstream);

        Gauge open = meters.find(OpenFlagsGauge.NAME).gauge();
        m.put("openFlags", open == null ? null : Math.round(open.value()));
        m.put("providers", ProviderOverview.list(meters, snapshot, totals, last, budgetViews));
        return m;
    }

    private Map<String, Object> budget(
            String budget, Map<String, Double> totals, MeterWindow.Delta last, SluiceConfig snapshot) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("budget", budget);
        Gauge inFlight =
                meters.find(DispatcherMeters.IN_FLIGHT).tag("budget", budget).gauge();
        b.put("provider", inFlight == null ? null : inFlight.getId().getTag("provider"));
        b.put("model", inFlight == null ? null : inFlight.getId().getTag("model"));
        Map<String, Object> utilisation = new LinkedHashMap<>();
        utilisation.put("tokens", round(gauge(DispatcherMeters.UTILISATION, budget, "tokens"), 4));
        utilisation.put("requests", round(gauge(DispatcherMeters.UTILISATION, budget, "requests"), 4));
        // Input and output apart only where the provider limits them so (their gauges exist then).
        for (String unit : List.of("input_tokens", "output_tokens")) {
            if (meters.find(DispatcherMeters.UTILISATION)
                            .tag("budget", budget)
                            .tag("unit", unit)
                            .gauge()
                    != null) {
                utilisation.put(
                        unit.equals("input_tokens") ? "inputTokens" : "outputTokens",
                        round(gauge(DispatcherMeters.UTILISATION, budget, unit), 4));
            }
        }
        b.put("utilisation", utilisation);
        b.put("inFlight", Math.round(gauge(DispatcherMeters.IN_FLIGHT, budget, null)));
        b.put("concurrencyLimit", Math.round(gauge(DispatcherMeters.CONCURRENCY_LIMIT, budget, null)));
        ProviderSettings provider = providerOf((String) b.get("provider"), snapshot);
        ModelLimits limits = provider == null ? null : provider.models().get((String) b.get("model"));
        b.put(
                "maxInFlight",
                limits == null
                        ? null
                        : BudgetLimits.of(limits, provider.headroom(), Duration.ofMinutes(1))
                                .maxInFlight());
        b.put("queueDepth", Math.round(gauge(DispatcherMeters.QUEUE_DEPTH, budget, null)));
        b.put("pausedForMs", Math.round(gauge(DispatcherMeters.PAUSED, budget, null) * 1000));
        b.put("queueWaitP95Ms", waitP95(totals, last, budget));
        b.put("waitEstimate", waitEstimate(budget));
        b.put("pricePerMillionTokens", limits == null ? null : limits.pricePerMillionTokens());
        b.put("tokenRatio", round(tokenRatio((String) b.get("provider"), (String) b.get("model")), 4));
        return b;
    }

    private static ProviderSettings providerOf(String name, SluiceConfig snapshot) {
        if (name == null) return null;
        return snapshot.providers().stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElse(null);
    }

    private static String priceSource(SluiceConfig snapshot) {
        List<String> prices = new ArrayList<>();
        for (ProviderSettings p : snapshot.providers()) {
            new TreeMap<>(p.models())
                    .forEach((model, l) -> prices.add(
                            String.format(Locale.ROOT, "%s:%s $%.2f", p.name(), model, l.pricePerMillionTokens())));
        }
        List<String> builtIn = snapshot.providers().stream()
                .filter(p -> p.baseUrl().isEmpty())
                .map(ProviderSettings::name)
                .toList();
        String free = builtIn.isEmpty()
                ? ""
                : snapshot.providers().size() == 1
                        ? "; the built-in lab provider bills nothing real"
                        : "; " + String.join(", ", builtIn) + (builtIn.size() == 1 ? " is" : " are")
                                + " the built-in lab provider, which bills nothing real";
        return "Spend is the tokens each provider answer reported × price-per-million-tokens from the tiers document ("
                + String.join(", ", prices) + " per million" + free + ").";
    }

    /** The provider's count per estimated token the budget is charged with; 1 (the estimate) if not registered. */
    private double tokenRatio(String provider, String model) {
        Gauge g = provider == null || model == null
                ? null
                : meters.find(ProviderCalibration.GAUGE)
                        .tag("provider", provider)
                        .tag("model", model)
                        .gauge();
        double v = g == null ? 1 : g.value();
        return Double.isFinite(v) ? v : 1;
    }

    private double gauge(String name, String budget, String unit) {
        var search = meters.find(name).tag("budget", budget);
        if (unit != null) search = search.tag("unit", unit);
        Gauge g = search.gauge();
        double v = g == null ? 0 : g.value();
        return Double.isFinite(v) ? v : 0;
    }

    /** Every counter the overview reads, and the queue-wait histogram's cumulative buckets, flat. */
    Map<String, Double> totals() {
        Map<String, Double> t = new LinkedHashMap<>();
        for (Counter c : meters.find(StageCounter.DECISIONS).counters())
            t.merge(DECISIONS + c.getId().getTag("stage"), c.count(), Double::sum);
        for (Counter c : meters.find(UpstreamMeters.RESPONSES).counters())
            t.merge(UPSTREAM + c.getId().getTag("status"), c.count(), Double::sum);
        ProviderOverview.totals(meters, t);
        for (Counter c : meters.find(SettleFilter.SPEND).counters()) t.merge("spend", c.count(), Double::sum);
        for (Counter c : meters.find(SettleFilter.TOKENS_ACTUAL).counters()) t.merge("tokens", c.count(), Double::sum);
        for (Timer timer : meters.find(DispatcherMeters.QUEUE_WAIT).timers()) {
            String budget = timer.getId().getTag("budget");
            var snap = timer.takeSnapshot();
            t.merge(WAIT + budget + "/count", (double) snap.count(), Double::sum);
            for (CountAtBucket c : snap.histogramCounts()) {
                t.merge(WAIT + budget + "/le/" + (long) c.bucket(TimeUnit.NANOSECONDS), c.count(), Double::sum);
            }
        }
        return t;
    }

    /**
     * The door's estimate against the wait that came true (actual / estimated, per admitted
     * request): p50 and p95 as Micrometer keeps them (a decaying window of about two minutes).
     * For one budget, or, for {@code null}, the budget with the most samples (percentiles do
     * not add). Null values without samples.
     */
    private Map<String, Object> waitEstimate(String budget) {
        DistributionSummary chosen = null;
        for (DistributionSummary s :
                meters.find(DispatcherMeters.ESTIMATE_RATIO).summaries()) {
            if (budget != null && !budget.equals(s.getId().getTag("budget"))) continue;
            if (chosen == null || s.count() > chosen.count()) chosen = s;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        Double p50 = null;
        Double p95 = null;
        long count = 0;
        if (chosen != null && chosen.count() > 0) {
            count = chosen.count();
            for (ValueAtPercentile v : chosen.takeSnapshot().percentileValues()) {
                if (v.percentile() == 0.5) p50 = round(v.value(), 3);
                if (v.percentile() == 0.95) p95 = round(v.value(), 3);
            }
        }
        m.put("p50", p50);
        m.put("p95", p95);
        m.put("samples", count);
        return m;
    }

    /** The p95 of the queue wait (all budgets when {@code budget} is empty), since start and over the last window. */
    private static Map<String, Object> waitP95(Map<String, Double> totals, MeterWindow.Delta last, String budget) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lastMinute", p95Ms(last.change(), budget));
        m.put("sinceStart", p95Ms(totals, budget));
        return m;
    }

    /**
     * The 95th percentile from cumulative histogram buckets: the upper bound of the first
     * bucket that holds 95 % of the samples (an upper bound, as Prometheus'
     * histogram_quantile would interpolate within it). Null without samples. A lookup in the
     * buckets Micrometer already keeps, not a percentile over samples: refilling an HdrHistogram
     * from them allocated one per request and only added its rounding.
     */
    static Double p95Ms(Map<String, Double> values, String budget) {
        double count = 0;
        TreeMap<Long, Double> buckets = new TreeMap<>();
        for (Map.Entry<String, Double> e : values.entrySet()) {
            String k = e.getKey();
            if (!k.startsWith(WAIT)) continue;
            String rest = k.substring(WAIT.length());
            int slash = rest.indexOf('/');
            String b = rest.substring(0, slash);
            if (!budget.isEmpty() && !b.equals(budget)) continue;
            String what = rest.substring(slash + 1);
            if (what.equals("count")) count += e.getValue();
            else if (what.startsWith("le/"))
                buckets.merge(Long.parseLong(what.substring(3)), e.getValue(), Double::sum);
        }
        if (count <= 0) return null;
        double target = Math.ceil(count * 0.95);
        for (Map.Entry<Long, Double> e : buckets.entrySet()) {
            if (e.getValue() >= target) return round(e.getKey() / 1e6, 1);
        }
        return buckets.isEmpty() ? null : round(buckets.lastKey() / 1e6, 1); // beyond the last bucket: at least this
    }

    private static Map<String, Object> prefixed(Map<String, Double> values, String prefix, List<String> always) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String s : always) m.put(s, 0L);
        values.forEach((k, v) -> {
            if (k.startsWith(prefix)) m.put(k.substring(prefix.length()), Math.round(v));
        });
        return m;
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
