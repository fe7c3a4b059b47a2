package dev.sluice.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.unit.DataSize;

/**
 * Each settings record, bound as the gateway binds it: a bad value stops the start with a
 * message naming the property and the value, and nothing set gives the documented defaults.
 */
class SettingsValidationTest {
    @EnableConfigurationProperties({
        SluiceProperties.class,
        StoreProperties.class,
        DispatchProperties.class,
        UpstreamProperties.class,
        AbuseProperties.class,
        AdminProperties.class,
        EdgeProperties.class,
        CalibrationProperties.class,
        SliceProperties.class
    })
    static class AllSettings {}

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withUserConfiguration(AllSettings.class);

    @Test
    void nothingSetGivesTheDocumentedDefaults() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            StoreProperties store = context.getBean(StoreProperties.class);
            assertThat(store)
                    .isEqualTo(new StoreProperties(
                            Duration.ofMillis(500),
                            Duration.ofMillis(750),
                            Duration.ofSeconds(2),
                            Duration.ofMillis(500),
                            Duration.ofSeconds(30),
                            new StoreProperties.RedisDown(4),
                            new StoreProperties.Batch(Duration.ofMillis(50), 64)));
            assertThat(context.getBean(DispatchProperties.class))
                    .isEqualTo(new DispatchProperties(
                            10_000,
                            0.1,
                            Duration.ofMinutes(10),
                            3,
                            Duration.ofSeconds(2),
                            Duration.ofMillis(250),
                            Duration.ofMillis(500),
                            new DispatchProperties.Failover(
                                    3,
                                    Duration.ofSeconds(1),
                                    Duration.ofSeconds(10),
                                    Duration.ofSeconds(10),
                                    Duration.ZERO)));
            assertThat(context.getBean(UpstreamProperties.class))
                    .isEqualTo(new UpstreamProperties(Duration.ofSeconds(120), Duration.ofSeconds(120)));
            assertThat(context.getBean(AbuseProperties.class))
                    .isEqualTo(new AbuseProperties(
                            new AbuseProperties.Sampler(true),
                            Duration.ofSeconds(2),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(1),
                            Duration.ofSeconds(30),
                            Duration.ofDays(90)));
            SluiceProperties sluice = context.getBean(SluiceProperties.class);
            assertThat(sluice.maxRequestBytes()).isEqualTo(DataSize.ofBytes(8_388_608));
            assertThat(sluice.tiers().pollInterval()).isEqualTo(Duration.ofSeconds(1));
            assertThat(sluice.tiersPath()).isEmpty();
            assertThat(sluice.provider().url()).isEmpty();
            assertThat(sluice.demoTenants()).isNull();
            AdminProperties admin = context.getBean(AdminProperties.class);
            assertThat(admin.user()).isEqualTo("admin");
            assertThat(admin.login()).isEqualTo(new AdminProperties.Login(5, 20, Duration.ofMinutes(15)));
            assertThat(context.getBean(EdgeProperties.class))
                    .isEqualTo(new EdgeProperties(
                            Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(120), 1024));
        });
    }

    /** The Helm chart and operators set them as environment variables. */
    @Test
    void environmentVariablesWithUnderscoresStillBind() {
        runner.withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of(
                                        "SLUICE_STORE_TIMEOUT", "750ms",
                                        "SLUICE_STORE_REDIS_DOWN_REPLICAS", "6",
                                        "SLUICE_DISPATCH_QUEUE_CAPACITY", "20000",
                                        "SLUICE_MAX_REQUEST_BYTES", "1048576",
                                        "SLUICE_TIERS_PATH", "/etc/sluice/tiers.yaml",
                                        "SLUICE_TIERS_POLL_INTERVAL", "2s",
                                        "SLUICE_ABUSE_SAMPLER_ENABLED", "false"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(StoreProperties.class).timeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(context.getBean(StoreProperties.class)
                                    .redisDown()
                                    .replicas())
                            .isEqualTo(6);
                    assertThat(context.getBean(DispatchProperties.class).queueCapacity())
                            .isEqualTo(20_000);
                    SluiceProperties sluice = context.getBean(SluiceProperties.class);
                    assertThat(sluice.maxRequestBytes()).isEqualTo(DataSize.ofMegabytes(1));
                    assertThat(sluice.tiersPath()).isEqualTo("/etc/sluice/tiers.yaml");
                    assertThat(sluice.tiers().pollInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(context.getBean(AbuseProperties.class).sampler().enabled())
                            .isFalse();
                });
    }

    @Test
    void storeSettingsRefuseNonPositiveAndGarbage() {
        failsNaming("sluice.store.timeout", "-1s");
        failsNaming("sluice.store.timeout", "0ms");
        failsNaming("sluice.store.timeout", "soon");
        failsNaming("sluice.store.startup-timeout", "0s");
        failsNaming("sluice.store.probe-interval", "-500ms");
        failsNaming("sluice.store.known-keys-refresh", "0s");
        failsNaming("sluice.store.redis-down.replicas", "0");
        failsNaming("sluice.store.redis-down.replicas", "many");
        failsNaming("sluice.store.decision-timeout", "0ms");
        failsNaming("sluice.store.decision-timeout", "-1s");
    }

    @Test
    void theDecisionBudgetHoldsAtLeastOneStoreTimeout() {
        // Below the timeout every call would be cut short, and a cut call never marks Redis down.
        runner.withPropertyValues("sluice.store.timeout=500ms", "sluice.store.decision-timeout=499ms")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.store.decision-timeout must be at least timeout (500ms), was 499ms"));
        runner.withPropertyValues("sluice.store.decision-timeout=500ms")
                .run(context -> assertThat(
                                context.getBean(StoreProperties.class).decisionTimeout())
                        .isEqualTo(Duration.ofMillis(500)));
        // Unset, it follows a timeout raised past its default instead of refusing to start.
        runner.withPropertyValues("sluice.store.timeout=2s")
                .run(context -> assertThat(
                                context.getBean(StoreProperties.class).decisionTimeout())
                        .isEqualTo(Duration.ofSeconds(2)));
        runner.withPropertyValues("sluice.store.timeout=100ms")
                .run(context -> assertThat(
                                context.getBean(StoreProperties.class).decisionTimeout())
                        .isEqualTo(Duration.ofMillis(750)));
    }

    @Test
    void dispatchSettingsRefuseOutOfRangeValues() {
        failsNaming("sluice.dispatch.queue-capacity", "0");
        failsNaming("sluice.dispatch.queue-capacity", "99999999999");
        failsNaming("sluice.dispatch.interactive-floor", "1");
        failsNaming("sluice.dispatch.interactive-floor", "-0.1");
        failsNaming("sluice.dispatch.interactive-floor", "NaN");
        failsNaming("sluice.dispatch.lease", "0s");
        failsNaming("sluice.dispatch.max-attempts", "0");
        failsNaming("sluice.dispatch.store-timeout", "-2s");
        failsNaming("sluice.dispatch.count-delay", "-1ms");
        failsNaming("sluice.dispatch.count-delay", "2s");
        failsNaming("sluice.dispatch.spill-wait", "-1ms");
        failsNaming("sluice.dispatch.failover.failures", "0");
        failsNaming("sluice.dispatch.failover.cooldown", "0s");
        failsNaming("sluice.dispatch.failover.cooldown", "9223372036854775807s");
        failsNaming("sluice.dispatch.failover.probe-timeout", "2d");
        failsNaming("sluice.dispatch.failover.first-byte-timeout", "-1s");
        failsNaming("sluice.dispatch.failover.first-byte-timeout", "9223372036854775807ms");
        runner.withPropertyValues("sluice.dispatch.failover.cooldown=5s", "sluice.dispatch.failover.max-cooldown=2s")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.dispatch.failover.max-cooldown"));
        runner.withPropertyValues("sluice.dispatch.failover.first-byte-timeout=20s")
                .run(context -> assertThat(context.getBean(DispatchProperties.class)
                                .failover()
                                .firstByteTimeout())
                        .isEqualTo(Duration.ofSeconds(20)));
    }

    @Test
    void upstreamTimeoutsMustBePositive() {
        failsNaming("sluice.upstream.stream-idle-timeout", "0s");
        failsNaming("sluice.upstream.body-timeout", "-1ms");
        failsNaming("sluice.upstream.body-timeout", "2 minutes");
    }

    @Test
    void abuseSettingsRefuseNonPositiveIntervals() {
        failsNaming("sluice.abuse.tick", "0s");
        failsNaming("sluice.abuse.ship-interval", "-1s");
        failsNaming("sluice.abuse.open-flags-interval", "0ms");
        failsNaming("sluice.abuse.closed-flag-retention", "0d");
        failsNaming("sluice.abuse.settle", "-1s");
        failsNaming("sluice.abuse.sampler.enabled", "perhaps");
        // Zero settle is allowed: sample a minute as soon as it ends (one replica, nothing to wait for).
        runner.withPropertyValues("sluice.abuse.settle=0s")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void topLevelSettingsRefuseBadValues() {
        failsNaming("sluice.max-request-bytes", "0");
        failsNaming("sluice.max-request-bytes", "4GB");
        failsNaming("sluice.max-request-bytes", "big");
        failsNaming("sluice.tiers.poll-interval", "0s");
        failsNaming("sluice.demo.tenants", "maybe");
        runner.withPropertyValues("sluice.max-request-bytes=16MB")
                .run(context -> assertThat(context.getBean(SluiceProperties.class)
                                .maxRequestBytes()
                                .toBytes())
                        .isEqualTo(16L * 1024 * 1024));
    }

    @Test
    void adminAndEdgeSettingsRefuseBadValues() {
        failsNaming("sluice.admin.login.max-failures-per-address", "0");
        failsNaming("sluice.admin.login.max-failures-per-user", "-3");
        failsNaming("sluice.admin.login.window", "0s");
        failsNaming("sluice.admin.login.window", "2d");
        failsNaming("sluice.edge.idle-timeout", "0s");
        failsNaming("sluice.edge.read-timeout", "-1s");
        failsNaming("sluice.edge.max-connections-per-client", "-1");
        failsNaming("sluice.edge.request-timeout", "eventually");
        failsNaming("sluice.edge.request-timeout", "2h");
        runner.withPropertyValues("sluice.edge.read-timeout=10s", "sluice.edge.request-timeout=5s")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.edge.request-timeout must be at least read-timeout (10s), was 5s"));
        runner.withPropertyValues("sluice.edge.max-connections-per-client=-1")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.edge.max-connections-per-client must be greater than or equal to 0, was -1"));
        runner.withPropertyValues("sluice.dispatch.count-delay=2s")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.dispatch.count-delay must be shorter than or equal to 1 second, was 2s"));
    }

    @Test
    void calibrationAndSliceSettingsRefuseBadValues() {
        failsNaming("sluice.calibration.min-ratio", "0");
        failsNaming("sluice.calibration.min-ratio", "NaN");
        failsNaming("sluice.calibration.max-ratio", "0.4");
        failsNaming("sluice.calibration.max-ratio", "Infinity");
        // Above max-ratio: reported on max-ratio, naming the default it must reach.
        runner.withPropertyValues("sluice.calibration.default-ratio=3")
                .run(context -> assertThat(messages(context.getStartupFailure()))
                        .contains("sluice.calibration.max-ratio must be at least default-ratio (3.0), was 2.0"));
        failsNaming("sluice.calibration.default-ratio", "NaN");
        failsNaming("sluice.calibration.fast-samples", "0");
        failsNaming("sluice.calibration.smoothing", "0");
        failsNaming("sluice.calibration.smoothing", "1.5");
        failsNaming("sluice.calibration.sync-every", "0s");
        failsNaming("sluice.calibration.max-age", "5s");
        failsNaming("sluice.dispatch.slices.horizon", "0s");
        failsNaming("sluice.dispatch.slices.horizon", "11s");
        failsNaming("sluice.dispatch.slices.slot-ttl", "999ms");
        failsNaming("sluice.store.batch.every", "0ms");
        failsNaming("sluice.store.batch.every", "2s");
        failsNaming("sluice.store.batch.max", "0");
        runner.withPropertyValues("sluice.calibration.max-age=6s", "sluice.dispatch.slices.slot-ttl=1s")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void durationsInMessagesReadAsTheyAreWritten() {
        assertThat(SettingsFailureAnalyzer.show(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(SettingsFailureAnalyzer.show(Duration.ofMillis(-1500))).isEqualTo("-1500ms");
        assertThat(SettingsFailureAnalyzer.show(Duration.ofDays(2))).isEqualTo("2d");
        assertThat(SettingsFailureAnalyzer.show(Duration.ZERO)).isEqualTo("0s");
        assertThat(SettingsFailureAnalyzer.show(Duration.ofNanos(1))).isEqualTo("1ns");
        assertThat(SettingsFailureAnalyzer.show(Duration.ofSeconds(Long.MAX_VALUE)))
                .endsWith("s");
    }

    /** The start fails, and the failure (as Boot reports it, causes included) names the property and the value. */
    private void failsNaming(String property, String value) {
        runner.withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).as(property + "=" + value).hasFailed();
            String messages = messages(context.getStartupFailure());
            assertThat(messages).as(property + "=" + value).contains(property);
            assertThat(messages).as(property + "=" + value).containsAnyOf(forms(value));
        });
    }

    /** How a message may show the bad value: as written, or as the type it was converted to prints it. */
    private static String[] forms(String value) {
        List<String> forms = new ArrayList<>(List.of("[" + value + "]", "was " + value));
        try {
            forms.add("was " + SettingsFailureAnalyzer.show(DurationStyle.detectAndParse(value)));
        } catch (RuntimeException notADuration) {
            // only the written form then
        }
        try {
            forms.add("was " + Double.parseDouble(value));
        } catch (RuntimeException notANumber) {
            // only the written form then
        }
        try {
            forms.add("was " + DataSize.parse(value));
        } catch (RuntimeException notASize) {
            // only the written form then
        }
        return forms.toArray(String[]::new);
    }

    /** The causes' messages, and the start-up report of a setting its constraints refuse, as an operator reads it. */
    static String messages(Throwable failure) {
        List<String> all = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) all.add(String.valueOf(t.getMessage()));
        FailureAnalysis report = new SettingsFailureAnalyzer().analyze(failure);
        if (report != null) all.add(report.getDescription());
        return String.join("\n", all);
    }
}
