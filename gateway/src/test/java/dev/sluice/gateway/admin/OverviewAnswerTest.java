package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.OpenFlagsGauge;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.dispatch.DispatcherMeters;
import dev.sluice.gateway.dispatch.Dispatchers;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import dev.sluice.gateway.support.PercentSummary;
import dev.sluice.gateway.testsupport.TestTiers;
import dev.sluice.gateway.usage.SettleFilter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /admin/api/overview} whole, on meters and a clock the test sets, against the answers
 * kept in {@code src/test/resources/admin/}: every field, in the order written, with its number
 * format (rounding, integer or not) and its nulls. The console and the OpenAPI document read
 * these names; a change to the answer shows here first.
 */
class OverviewAnswerTest {
    /** Two providers: the built-in one, whose models limit input and output apart, and one at a URL with a key in it. */
    private static final String PROVIDERS = """

            providers:
              - name: lab
                base-url: ""
                models:
                  "*": {requests-per-minute: 1000, input-tokens-per-minute: 90000, output-tokens-per-minute: 30000, max-in-flight: 40, price-per-million-tokens: 3.0}
              - name: remote
                base-url: https://user:secret@api.example.com:8443/v1
                headroom: 0.5
                models:
                  gpt-4o-mini: {requests-per-minute: 600, tokens-per-minute: 100000, max-in-flight: 10, price-per-million-tokens: 0.15}
            """;

    @Test
    void aReplicaThatCountedNothingYetAnswersZerosAndNulls() throws IOException {
        AdminApiFixture admin = new AdminApiFixture(shipped());
        assertThat(answer(admin)).isEqualTo(AdminApiFixture.golden("overview-nothing-counted.json"));
    }

    @Test
    void everyBlockIsWrittenAsTheConsoleReadsIt() throws IOException {
        AdminApiFixture admin = new AdminApiFixture(Files.readString(
                Path.of(TestTiers.shippedWithProviders("overview-answer-tiers.yaml", PROVIDERS)),
                StandardCharsets.UTF_8));
        MeterRegistry m = admin.meters;
        Tags lab = budget("lab:*", "lab", "*");
        Tags remote = budget("remote:gpt-4o-mini", "remote", "gpt-4o-mini");
        gauge(m, DispatcherMeters.IN_FLIGHT, lab, 3);
        gauge(m, DispatcherMeters.IN_FLIGHT, remote, 0);
        gauge(m, DispatcherMeters.IN_FLIGHT, Tags.of("budget", "retired:old"), 1); // no provider or model tag
        gauge(m, DispatcherMeters.UTILISATION, lab.and("unit", "tokens"), 0.123456);
        gauge(m, DispatcherMeters.UTILISATION, lab.and("unit", "requests"), 0.5);
        gauge(m, DispatcherMeters.UTILISATION, lab.and("unit", "input_tokens"), 1 / 3.0);
        gauge(m, DispatcherMeters.UTILISATION, lab.and("unit", "output_tokens"), 0.00004);
        gauge(m, DispatcherMeters.UTILISATION, remote.and("unit", "tokens"), 0.98765);
        gauge(m, DispatcherMeters.UTILISATION, remote.and("unit", "requests"), Double.NaN);
        gauge(m, DispatcherMeters.CONCURRENCY_LIMIT, lab, 12);
        gauge(m, DispatcherMeters.CONCURRENCY_LIMIT, remote, 4);
        gauge(m, DispatcherMeters.QUEUE_DEPTH, lab, 7);
        gauge(m, DispatcherMeters.PAUSED, lab, 0);
        gauge(m, DispatcherMeters.PAUSED, remote, 2.3456);
        gauge(m, ProviderCalibration.GAUGE, Tags.of("provider", "lab", "model", "*"), 1.234567);
        gauge(m, Dispatchers.CIRCUIT, Tags.of("provider", "lab"), 0);
        gauge(m, Dispatchers.CIRCUIT, Tags.of("provider", "remote"), 1);
        gauge(m, OpenFlagsGauge.NAME, Tags.empty(), 2);
        Timer labWait = queueWait(m, lab);
        queueWait(m, remote);
        DistributionSummary labRatio = ratio(m, lab);
        DistributionSummary remoteRatio = ratio(m, remote);

        // Before the snapshot the last minute is measured from: since start only.
        m.counter(StageCounter.DECISIONS, "tier", "pro", "stage", "passed").increment(10);
        m.counter(StageCounter.DECISIONS, "tier", "pro", "stage", "too-large").increment();
        m.counter(UpstreamMeters.RESPONSES, "status", "200", "provider", "lab").increment(6);
        m.counter(UpstreamMeters.RESPONSES, "status", "timeout", "provider", "remote")
                .increment();
        m.counter(SettleFilter.SPEND, "tier", "pro").increment(0.0012345);
        m.counter(SettleFilter.TOKENS_ACTUAL).increment(411.6);
        for (int i = 0; i < 40; i++) labWait.record(5, TimeUnit.MILLISECONDS);
        admin.overview.record();
        admin.clock.advance(45_400);

        m.counter(StageCounter.DECISIONS, "tier", "pro", "stage", "passed").increment(5);
        m.counter(StageCounter.DECISIONS, "tier", "free", "stage", "passed").increment(3);
        m.counter(StageCounter.DECISIONS, "tier", "pro", "stage", "busy").increment(2);
        m.counter(UpstreamMeters.RESPONSES, "status", "200", "provider", "lab").increment(3);
        m.counter(UpstreamMeters.RESPONSES, "status", "200", "provider", "remote")
                .increment();
        m.counter(UpstreamMeters.RESPONSES, "status", "429", "provider", "remote")
                .increment(2);
        m.counter(UpstreamMeters.RETRIES, "status", "429", "provider", "lab").increment();
        m.counter(UpstreamMeters.RETRIES, "status", "failover", "provider", "remote")
                .increment(2);
        m.counter(SettleFilter.SPEND, "tier", "pro").increment(0.00031);
        m.counter(SettleFilter.TOKENS_ACTUAL).increment(103.2);
        for (int i = 0; i < 3; i++) labWait.record(250, TimeUnit.MILLISECONDS);
        labWait.record(2, TimeUnit.SECONDS);
        for (double r : new double[] {1.0, 1.2, 0.8, 2.5, 1.1}) labRatio.record(r);
        remoteRatio.record(0.5);

        assertThat(answer(admin)).isEqualTo(AdminApiFixture.golden("overview-every-block.json"));
    }

    /**
     * The answer indented, its start time (the JVM's) checked and set aside, and each provider's
     * budgets, the flat list's entries of that provider whole, named.
     */
    private static String answer(AdminApiFixture admin) {
        ObjectNode o = (ObjectNode) admin.get("overview");
        assertThat(Instant.parse(o.get("startedAt").asString())).isBefore(Instant.now());
        o.put("startedAt", "(the JVM's start)");
        for (JsonNode p : o.path("providers")) {
            List<JsonNode> own = new ArrayList<>();
            o.path("budgets").forEach(b -> {
                if (b.path("provider").asString("").equals(p.path("name").asString())) own.add(b);
            });
            assertThat(p.path("budgets")).containsExactlyElementsOf(own);
            ArrayNode names = ((ObjectNode) p).putArray("budgets");
            own.forEach(b -> names.add(b.path("budget").asString()));
        }
        return AdminApiFixture.pretty(o);
    }

    private static String shipped() throws IOException {
        return Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
    }

    private static Tags budget(String budget, String provider, String model) {
        return Tags.of(List.of(Tag.of("budget", budget), Tag.of("provider", provider), Tag.of("model", model)));
    }

    private static void gauge(MeterRegistry m, String name, Tags tags, double value) {
        Gauge.builder(name, () -> value).tags(tags).register(m);
    }

    /** Buckets as SLOs: the simple registry keeps no percentile histogram (Prometheus' does). */
    private static Timer queueWait(MeterRegistry m, Tags tags) {
        return Timer.builder(DispatcherMeters.QUEUE_WAIT)
                .tags(tags)
                .serviceLevelObjectives(
                        Duration.ofMillis(1), Duration.ofMillis(10), Duration.ofMillis(300), Duration.ofSeconds(3))
                .register(m);
    }

    private static DistributionSummary ratio(MeterRegistry m, Tags tags) {
        return PercentSummary.register(m, DispatcherMeters.WAIT_OF_ESTIMATE, tags, "", 0.8, 1.2);
    }
}
