package dev.sluice.gateway.packaging;

import static dev.sluice.gateway.packaging.HelmCharts.CHART;
import static dev.sluice.gateway.packaging.HelmCharts.ROOT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.AbuseSampler;
import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.OpenFlagsGauge;
import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.packaging.HelmCharts.Node;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.SpendLimit;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.tiers.TierDocument;
import dev.sluice.gateway.tiers.TierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard and the alert rules use only metrics the gateway really exports. The gateway
 * runs whole, with actuator on its own port as the chart runs it; the test drives every path
 * that creates a meter lazily (a request passed, one streamed, one refused with 429, one served
 * while "Redis" does not answer, a tiers document refused on reload, a tenant flagged for sitting
 * at its ceiling), scrapes /actuator/prometheus, and checks every metric name and label in the
 * dashboard's and the rules' expressions against the scrape. It also checks that every exported
 * sluice_* metric is documented in docs/metrics.md, and that the chart's probe paths answer.
 */
@GatewayTest(
        properties = {
            "management.server.port=0",
            "sluice.abuse.sampler.enabled=false", // the test samples its minute itself
        })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MonitoringMetricsTest {
    /** The tenant whose quota "Redis" fails for; its tier (enterprise) fails open. */
    static final String REDIS_DOWN_TENANT = "demo-enterprise";
    /** Labels Prometheus adds from the scrape target, not the gateway. */
    static final Set<String> TARGET_LABELS =
            Set.of("namespace", "pod", "job", "instance", "service", "container", "endpoint");

    static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"Extract page 1\"}]}";

    /** A quota store that fails for one tenant, as Redis does when it is down: the real fallback path runs. */
    @TestConfiguration
    static class RedisDownForOneTenant {
        @Bean
        @Primary
        QuotaLimiter failingForOneTenant(QuotaClock clock, MeterRegistry meters) {
            InMemoryQuotaStore memory = new InMemoryQuotaStore(clock.clock());
            QuotaStore store = new QuotaStore() {
                @Override
                public Mono<QuotaDecision> acquire(
                        String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
                    return down(tenantId)
                            ? Mono.error(new RedisConnectionFailureException("test: Redis down"))
                            : memory.acquire(tenantId, windows, spends, charge);
                }

                @Override
                public Mono<Void> adjustAll(
                        String tenantId,
                        List<WindowLimit> windows,
                        List<SpendLimit> spends,
                        List<Correction> corrections) {
                    return down(tenantId)
                            ? Mono.error(new RedisConnectionFailureException("test: Redis down"))
                            : memory.adjustAll(tenantId, windows, spends, corrections);
                }

                @Override
                public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
                    return down(tenantId)
                            ? Mono.error(new RedisConnectionFailureException("test: Redis down"))
                            : memory.peek(tenantId, windows);
                }

                boolean down(String tenantId) {
                    return REDIS_DOWN_TENANT.equals(tenantId);
                }
            };
            return new QuotaLimiter(store, new InMemoryQuotaStore(clock.clock()), Duration.ofMillis(500), meters);
        }
    }

    @Value("${local.server.port}")
    int port;

    @Value("${local.management.port}")
    int managementPort;

    @Autowired
    QuotaLimiter quota;

    @Autowired
    TenantActivity activity;

    @Autowired
    UsageHistory history;

    @Autowired
    AbuseSampler sampler;

    @Autowired
    OpenFlagsGauge openFlags;

    @Autowired
    TierDocumentStore tiersStore;

    @Autowired
    TierReloader reloader;

    @Autowired
    ConfigRegistry config;

    @Autowired
    QuotaClock clock;

    /** Sample name (with its _total, _bucket... suffix) → label names seen on it. */
    Map<String, Set<String>> exported;

    Map<String, Set<String>> fresh;

    @BeforeAll
    void exerciseEveryMeterThenScrape() {
        // What Prometheus sees before any traffic: an alert on the first event needs its series at zero.
        fresh = parseExposition(client(managementPort)
                .get()
                .uri("/actuator/prometheus")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10)));
        ResponseEntity<String> ok = post("sk-sluice-demo-free", CHAT);
        assertThat(ok.getStatusCode().value()).isEqualTo(200);
        List<String> stream = client(port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer sk-sluice-demo-pro")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(CHAT.replace("{\"model\"", "{\"stream\":true,\"model\""))
                .retrieve()
                .bodyToFlux(String.class)
                .collectList()
                .block(Duration.ofSeconds(20));
        assertThat(stream).last().isEqualTo("[DONE]");
        // About 4,500 prompt tokens each, charged for the minute whatever the answer: free's 10,000-token
        // minute holds two, and the third gets a 429 (no delay helps: the window frees up only in a minute).
        String big = CHAT.replace("Extract page 1", "page ".repeat(4_500));
        ResponseEntity<String> refused = post("sk-sluice-demo-free", big);
        for (int i = 0; i < 3 && refused.getStatusCode().value() != 429; i++)
            refused = post("sk-sluice-demo-free", big);
        assertThat(refused.getStatusCode().value()).as(refused.getBody()).isEqualTo(429);
        ResponseEntity<String> redisDown = post("sk-sluice-demo-enterprise", CHAT);
        assertThat(redisDown.getStatusCode().value())
                .as("fail-open: served on this replica's own windows")
                .isEqualTo(200);

        refuseABadTiersDocument();
        flagATenantAtItsCeiling();

        String scrape = client(managementPort)
                .get()
                .uri("/actuator/prometheus")
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
        exported = parseExposition(scrape);
    }

    /** A document this replica cannot parse (as after a rolling upgrade): refused, the last good one kept. */
    void refuseABadTiersDocument() {
        TierDocument current = tiersStore.current().block(Duration.ofSeconds(5));
        TierDocumentStore.WriteOutcome bad = tiersStore
                .replace(current.version(), "tiers: [not, a, map", "test")
                .block(Duration.ofSeconds(5));
        assertThat(bad.written()).isTrue();
        reloader.checkOnce().block(Duration.ofSeconds(5));
        assertThat(reloader.appliedVersion()).isEqualTo(current.version());
        TierDocumentStore.WriteOutcome good = tiersStore
                .replace(bad.document().version(), current.yaml(), "test")
                .block(Duration.ofSeconds(5));
        reloader.checkOnce().block(Duration.ofSeconds(5));
        assertThat(reloader.appliedVersion()).isEqualTo(good.document().version());
    }

    /**
     * Fourteen minutes at the ceiling already in the tenant's series, and a fifteenth now (its
     * window really 95% full): sampling this minute runs the real detector and opens a flag.
     */
    void flagATenantAtItsCeiling() {
        String tenant = "metrics-abuser";
        Tier free = config.current().tier("free").orElseThrow();
        long now = clock.clock().millis();
        if (ActivityBuffer.minuteOf(now) + 60_000L - now < 3_000L)
            sleep(ActivityBuffer.minuteOf(now) + 60_000L - now + 100);
        long minute = ActivityBuffer.minuteOf(clock.clock().millis()); // at least 3 s before it ends
        activity.requestSeen(tenant, free.name());
        assertThat(quota.acquire(tenant, free, (long) (free.tokensPerMinute() * 0.95))
                        .block(Duration.ofSeconds(5))
                        .admitted())
                .isTrue();
        for (int i = 14; i >= 1; i--) {
            history.append(
                            tenant,
                            new UsageSample(
                                    minute - i * 60_000L, free.name(), 9_500, 10, 0.95, "minute", Map.of(), null),
                            24 * 60)
                    .block(Duration.ofSeconds(5));
        }
        AbuseSampler.MinuteReport report = sampler.sampleMinute(minute).block(Duration.ofSeconds(10));
        assertThat(report.opened()).extracting(f -> f.tenantId()).contains(tenant);
        openFlags.refresh().block(Duration.ofSeconds(5));
    }

    @Test
    void everyMetricAndLabelTheDashboardUsesIsExported() throws IOException {
        List<String> expressions = dashboardExpressions();
        assertThat(expressions).hasSizeGreaterThan(20);
        assertExported("dashboards/sluice.json", expressions);
    }

    @Test
    void everyMetricAndLabelTheAlertRulesUseIsExported() {
        List<String> expressions = ruleExpressions();
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(5);
        assertExported("alerts/sluice-rules.yaml", expressions);
    }

    /**
     * The same expressions against a scrape taken before any request: every series they read
     * exists from start (at zero where it counts), so an alert on the first store fallback or
     * the first refused reload fires on that event, and no panel is empty on a new replica.
     */
    @Test
    void everyMetricAndLabelTheDashboardAndTheAlertsUseIsExportedFromStart() throws IOException {
        assertExported("alerts/sluice-rules.yaml (fresh gateway)", ruleExpressions(), fresh);
        assertExported("dashboards/sluice.json (fresh gateway)", dashboardExpressions(), fresh);
    }

    List<String> ruleExpressions() {
        List<String> expressions = new ArrayList<>();
        Map<String, Object> rules = HelmCharts.loadYaml(CHART.resolve("alerts/sluice-rules.yaml"));
        for (Node group : Node.of(rules).at("groups").list()) {
            for (Node rule : group.at("rules").list()) expressions.add(rule.string("expr"));
        }
        return expressions;
    }

    @Test
    void theIssuesAlertsAreAllThere() {
        Map<String, Object> rules = HelmCharts.loadYaml(CHART.resolve("alerts/sluice-rules.yaml"));
        Map<String, String> exprByAlert = new TreeMap<>();
        for (Node group : Node.of(rules).at("groups").list()) {
            for (Node rule : group.at("rules").list()) exprByAlert.put(rule.string("alert"), rule.string("expr"));
        }
        assertThat(exprByAlert.get("SluiceQueueWaitHigh"))
                .contains("histogram_quantile(0.95")
                .contains("sluice_queue_wait_seconds_bucket");
        assertThat(Node.of(rules).at("groups", 0, "rules").list().stream()
                        .filter(r -> "SluiceQueueWaitHigh".equals(r.string("alert")))
                        .findFirst()
                        .orElseThrow()
                        .string("for"))
                .isEqualTo("10m");
        assertThat(exprByAlert.get("SluiceUpstream429Sustained")).contains("status=\"429\"");
        assertThat(exprByAlert.get("SluiceRedisFallback")).contains("sluice_store_fallback_total");
        assertThat(exprByAlert.get("SluiceAbuseFlagsOpen")).contains("sluice_abuse_flags_open");
        assertThat(exprByAlert.get("SluiceConfigReloadFailed")).contains("result=\"invalid\"");
    }

    @Test
    void everyExportedSluiceMetricIsDocumented() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/metrics.md"));
        Set<String> families = new TreeSet<>();
        for (String sample : exported.keySet()) {
            if (sample.startsWith("sluice_")) families.add(sample.replaceAll("_(bucket|count|sum|max)$", ""));
        }
        assertThat(families).hasSizeGreaterThanOrEqualTo(17);
        assertThat(families)
                .allSatisfy(f ->
                        assertThat(doc).as("docs/metrics.md documents " + f).contains("`" + f));
    }

    @Test
    void theChartsProbePathsAnswerOnTheManagementPort() {
        Node container = Node.of(HelmCharts.templateDefaults().one("Deployment", "gateway"))
                .at("spec", "template", "spec", "containers", 0);
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            String path = container.at(probe, "httpGet", "path").value().toString();
            ResponseEntity<String> r = client(managementPort)
                    .get()
                    .uri(path)
                    .exchangeToMono(x -> x.toEntity(String.class))
                    .block(Duration.ofSeconds(5));
            assertThat(r.getStatusCode().value()).as(probe + " " + path).isEqualTo(200);
            assertThat(r.getBody()).contains("\"UP\"");
        }
        ResponseEntity<String> onTenantPort = client(port)
                .get()
                .uri("/actuator/prometheus")
                .exchangeToMono(x -> x.toEntity(String.class))
                .block(Duration.ofSeconds(5));
        assertThat(onTenantPort.getStatusCode().value())
                .as("actuator is not on the tenant-facing port")
                .isEqualTo(404);
    }

    // --- helpers ----------------------------------------------------------------------------------

    void assertExported(String source, List<String> expressions) {
        assertExported(source, expressions, exported);
    }

    static void assertExported(String source, List<String> expressions, Map<String, Set<String>> exported) {
        Set<String> allLabels = new TreeSet<>(TARGET_LABELS);
        exported.values().forEach(allLabels::addAll);
        List<String> problems = new ArrayList<>();
        for (String expr : expressions) {
            PromQl.Use use = PromQl.parse(expr);
            if (use.metrics().isEmpty()) problems.add("no metric found in: " + expr);
            Set<String> labelsHere = new TreeSet<>(TARGET_LABELS);
            use.metrics().forEach((metric, labels) -> {
                Set<String> has = exported.get(metric);
                if (has == null) {
                    problems.add(metric + " is not exported (in: " + expr + ")");
                    return;
                }
                labelsHere.addAll(has);
                for (String label : labels) {
                    if (!has.contains(label) && !TARGET_LABELS.contains(label))
                        problems.add(metric + " has no label " + label + " (in: " + expr + ")");
                }
            });
            for (String label : use.groupingLabels()) {
                if (!labelsHere.contains(label))
                    problems.add("grouping by " + label + ", which none of its metrics has (in: " + expr + ")");
            }
        }
        assertThat(problems)
                .as(source + " against the gateway's /actuator/prometheus:\n" + String.join("\n", exported.keySet()))
                .isEmpty();
    }

    List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard =
                JsonMapper.builder().build().readTree(Files.readString(CHART.resolve("dashboards/sluice.json")));
        List<String> out = new ArrayList<>();
        collectExpressions(dashboard.get("panels"), out);
        for (JsonNode variable : dashboard.get("templating").get("list")) {
            JsonNode query = variable.get("query");
            if ("query".equals(variable.get("type").asString()))
                out.add(query.isObject() ? query.get("query").asString() : query.asString());
        }
        return out;
    }

    static void collectExpressions(JsonNode panels, List<String> out) {
        if (panels == null) return;
        for (JsonNode panel : panels) {
            JsonNode targets = panel.get("targets");
            if (targets != null)
                for (JsonNode t : targets) out.add(t.get("expr").asString());
            collectExpressions(panel.get("panels"), out);
        }
    }

    static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s");
    static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    static Map<String, Set<String>> parseExposition(String text) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) continue;
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) throw new IllegalStateException("unexpected exposition line: " + line);
            Set<String> labels = out.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) labels.add(l.group(1));
            }
        }
        return out;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    ResponseEntity<String> post(String key, String body) {
        return client(port)
                .post()
                .uri("/v1/chat/completions")
                .header("Authorization", "Bearer " + key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(20));
    }

    static WebClient client(int port) {
        return WebClient.create("http://127.0.0.1:" + port);
    }
}
