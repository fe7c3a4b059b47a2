package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.OpenFlagsGauge;
import dev.sluice.gateway.admin.OverviewViews.Budget;
import dev.sluice.gateway.admin.OverviewViews.Counts;
import dev.sluice.gateway.admin.OverviewViews.Overview;
import dev.sluice.gateway.admin.OverviewViews.Spend;
import dev.sluice.gateway.admin.OverviewViews.Utilisation;
import dev.sluice.gateway.admin.OverviewViews.WaitEstimate;
import dev.sluice.gateway.admin.OverviewViews.WaitP95;
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
import dev.sluice.gateway.support.PercentSummary;
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
 * {@link ProviderOverview}'s; the answer's shape is {@link OverviewViews}'.
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

    Overview overview() {
        long now = clock.millis();
        Map<String, Double> totals = totals();
        MeterWindow.Delta last = window.since(now, totals);
        SluiceConfig snapshot = config.current();

        TreeSet<String> names = new TreeSet<>();
        for (Gauge g : meters.find(DispatcherMeters.IN_FLIGHT).gauges())
            names.add(g.getId().getTag("budget"));
        List<Budget> budgets = new ArrayList<>();
        for (String b : names) budgets.add(budget(b, totals, last, snapshot));
        Gauge open = meters.find(OpenFlagsGauge.NAME).gauge();
        return new Overview(
                Instant.ofEpochMilli(now).toString(),
                startedAt.toString(),
                window.windowMs() / 1000,
                Math.round(last.coveredMs() / 1000.0),
                counts(totals, last, DECISIONS, MAIN_STAGES),
                waitP95(totals, last, ""),
                waitEstimate(null),
                budgets,
                new Spend(
                        round(last.get("spend"), 6),
                        round(totals.getOrDefault("spend", 0.0), 6),
                        Math.round(last.get("tokens")),
                        Math.round(totals.getOrDefault("tokens", 0.0)),
                        priceSource(snapshot)),
                counts(totals, last, UPSTREAM, List.of()),
                open == null ? null : Math.round(open.value()),
                ProviderOverview.list(meters, snapshot, totals, last, budgets));
    }

    private Budget budget(String budget, Map<String, Double> totals, MeterWindow.Delta last, SluiceConfig snapshot) {
        Gauge inFlight =
                meters.find(DispatcherMeters.IN_FLIGHT).tag("budget", budget).gauge();
        String provider = inFlight == null ? null : inFlight.getId().getTag("provider");
        String model = inFlight == null ? null : inFlight.getId().getTag("model");
        ProviderSettings settings = providerOf(provider, snapshot);
        ModelLimits limits = settings == null ? null : settings.models().get(model);
        return new Budget(
                budget,
                provider,
                model,
                utilisation(budget),
                Math.round(gauge(DispatcherMeters.IN_FLIGHT, budget, null)),
                Math.round(gauge(DispatcherMeters.CONCURRENCY_LIMIT, budget, null)),
                limits == null
                        ? null
                        : BudgetLimits.of(limits, settings.headroom(), Duration.ofMinutes(1))
                                .maxInFlight(),
                Math.round(gauge(DispatcherMeters.QUEUE_DEPTH, budget, null)),
                Math.round(gauge(DispatcherMeters.PAUSED, budget, null) * 1000),
                waitP95(totals, last, budget),
                waitEstimate(budget),
                limits == null ? null : limits.pricePerMillionTokens(),
                round(tokenRatio(provider, model), 4));
    }

    private Utilisation utilisation(String budget) {
        return new Utilisation(
                round(gauge(DispatcherMeters.UTILISATION, budget, "tokens"), 4),
                round(gauge(DispatcherMeters.UTILISATION, budget, "requests"), 4),
                apart(budget, "input_tokens"),
                apart(budget, "output_tokens"));
    }

    /** Input or output tokens' utilisation, only where the provider limits them apart (its gauge exists then). */
    private Double apart(String budget, String unit) {
        boolean limited = meters.find(DispatcherMeters.UTILISATION)
                        .tag("budget", budget)
                        .tag("unit", unit)
                        .gauge()
                != null;
        return limited ? round(gauge(DispatcherMeters.UTILISATION, budget, unit), 4) : null;
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
    private WaitEstimate waitEstimate(String budget) {
        DistributionSummary chosen = null;
        for (DistributionSummary s :
                meters.find(DispatcherMeters.WAIT_OF_ESTIMATE).summaries()) {
            if (budget != null && !budget.equals(s.getId().getTag("budget"))) continue;
            if (chosen == null || s.count() > chosen.count()) chosen = s;
        }
        Double p50 = null;
        Double p95 = null;
        long count = 0;
        if (chosen != null && chosen.count() > 0) {
            count = chosen.count();
            for (ValueAtPercentile v : chosen.takeSnapshot().percentileValues()) {
                if (v.percentile() == 0.5) p50 = round(PercentSummary.ratio(v.value()), 3);
                if (v.percentile() == 0.95) p95 = round(PercentSummary.ratio(v.value()), 3);
            }
        }
        return new WaitEstimate(p50, p95, count);
    }

    /** The p95 of the queue wait (all budgets when {@code budget} is empty), since start and over the last window. */
    private static WaitP95 waitP95(Map<String, Double> totals, MeterWindow.Delta last, String budget) {
        return new WaitP95(p95Ms(last.change(), budget), p95Ms(totals, budget));
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

    /** The counters under {@code prefix}, by what follows it, over the last window and since start. */
    private static Counts counts(
            Map<String, Double> totals, MeterWindow.Delta last, String prefix, List<String> always) {
        return new Counts(prefixed(last.change(), prefix, always), prefixed(totals, prefix, always));
    }

    private static Map<String, Long> prefixed(Map<String, Double> values, String prefix, List<String> always) {
        Map<String, Long> m = new LinkedHashMap<>();
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
