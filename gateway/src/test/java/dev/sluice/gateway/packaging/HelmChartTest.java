package dev.sluice.gateway.packaging;

import static dev.sluice.gateway.packaging.HelmCharts.CHART;
import static dev.sluice.gateway.packaging.HelmCharts.PRODUCTION_VALUES;
import static dev.sluice.gateway.packaging.HelmCharts.ROOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.LintResult;
import dev.sluice.gateway.config.AdminProperties;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.packaging.HelmCharts.Manifests;
import dev.sluice.gateway.packaging.HelmCharts.Node;
import dev.sluice.gateway.store.RedisConfiguredCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/**
 * helm/sluice renders and lints with the default values (a one-replica trial) and with
 * values-production.yaml, and the manifests carry what running Sluice needs: probes on Boot's
 * health groups, resources, a drain long enough for streams, a non-root read-only pod, the
 * repository's tiers.yaml, secrets by reference only, environment variables that the gateway
 * really binds, and the HPA, PDB, ServiceMonitor, PrometheusRule and dashboard when enabled.
 */
class HelmChartTest {
    /** Every environment variable the chart may set, each checked below against what reads it. */
    static final Set<String> KNOWN_ENV = Set.of(
            "SLUICE_TIERS_PATH",
            "MANAGEMENT_SERVER_PORT",
            "SPRING_LIFECYCLE_TIMEOUT_PER_SHUTDOWN_PHASE",
            "SLUICE_STORE_TIMEOUT",
            "SLUICE_STORE_REDIS_DOWN_REPLICAS",
            "JAVA_TOOL_OPTIONS",
            "SLUICE_PROVIDER_URL",
            "SLUICE_PROVIDER_API_KEY",
            "SLUICE_ADMIN_USER",
            "SLUICE_ADMIN_PASSWORD",
            "SLUICE_DEMO_TENANTS",
            "SPRING_DATA_REDIS_URL",
            "SPRING_DATA_REDIS_CLUSTER_NODES",
            "SPRING_DATA_REDIS_PASSWORD");

    static Manifests defaults;
    static Manifests production;

    @TempDir
    Path work;

    @BeforeAll
    static void render() {
        defaults = HelmCharts.templateDefaults();
        production = HelmCharts.template(PRODUCTION_VALUES);
    }

    // --- lint ---------------------------------------------------------------------------------

    @Test
    void lintsStrictlyWithDefaultValues() throws IOException {
        assertLintClean(HelmCharts.lint(work, Map.of()));
    }

    @Test
    void lintsStrictlyWithProductionValues() throws IOException {
        assertLintClean(HelmCharts.lint(work, HelmCharts.loadYaml(PRODUCTION_VALUES)));
    }

    @Test
    void lintsStrictlyWithEveryOptionalObjectOn() throws IOException {
        Map<String, Object> all = HelmCharts.merge(
                HelmCharts.loadYaml(PRODUCTION_VALUES),
                Map.of("redis", Map.of("existingSecret", "", "internal", Map.of("enabled", true))));
        assertLintClean(HelmCharts.lint(work, all));
    }

    /** Tenants and keys live only in Redis: the trial Redis keeps an append-only file, on a PVC when asked. */
    @Test
    void theTrialRedisPersistsAnAppendOnlyFile() {
        Manifests trial = HelmCharts.template(
                List.of(PRODUCTION_VALUES),
                Map.of(
                        "redis.existingSecret",
                        "",
                        "redis.internal.enabled",
                        true,
                        "redis.internal.persistence.enabled",
                        true));
        Node redis = Node.of(trial.one("Deployment", "redis")).at("spec", "template", "spec");
        assertThat(redis.at("containers").list().get(0).at("args").value().toString())
                .contains("--appendonly, yes");
        assertThat(redis.at("volumes")
                        .list()
                        .get(0)
                        .at("persistentVolumeClaim", "claimName")
                        .value())
                .isNotNull();
        assertThat(trial.has("PersistentVolumeClaim")).isTrue();
    }

    /** While Redis is out each replica spends the provider's limits / the most replicas that may run. */
    @Test
    void eachReplicasShareWhileRedisIsOutFollowsTheMostReplicasThatMayRun() {
        assertThat(env(defaults).get("SLUICE_STORE_REDIS_DOWN_REPLICAS").string("value"))
                .isEqualTo("1");
        Manifests scaled = HelmCharts.template(
                List.of(PRODUCTION_VALUES), Map.of("autoscaling.enabled", true, "autoscaling.maxReplicas", 7));
        assertThat(env(scaled).get("SLUICE_STORE_REDIS_DOWN_REPLICAS").string("value"))
                .isEqualTo("7");
    }

    static void assertLintClean(LintResult lint) {
        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
        assertThat(lint.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    // --- the default render: a one-replica trial -----------------------------------------------

    @Test
    void byDefaultOneReplicaOnTheInMemoryStoreWithNothingOptional() {
        assertThat(Node.of(defaults.one("Deployment")).at("spec", "replicas").value())
                .isEqualTo(1);
        for (String kind : List.of(
                "HorizontalPodAutoscaler", "PodDisruptionBudget", "ServiceMonitor", "PrometheusRule", "Secret")) {
            assertThat(defaults.has(kind)).as(kind).isFalse();
        }
        assertThat(defaults.ofKind("Deployment")).hasSize(1); // no trial Redis
        assertThat(env(defaults))
                .doesNotContainKeys(
                        "SPRING_DATA_REDIS_URL",
                        "SPRING_DATA_REDIS_CLUSTER_NODES",
                        "SLUICE_ADMIN_PASSWORD",
                        "SLUICE_PROVIDER_API_KEY");
    }

    @Test
    void probesUseBootsHealthGroupsOnTheManagementPort() {
        for (Manifests m : List.of(defaults, production)) {
            Node container = gateway(m);
            assertThat(container.at("livenessProbe", "httpGet", "path").value()).isEqualTo("/actuator/health/liveness");
            assertThat(container.at("readinessProbe", "httpGet", "path").value())
                    .isEqualTo("/actuator/health/readiness");
            assertThat(container.at("startupProbe", "httpGet", "path").value()).isEqualTo("/actuator/health/liveness");
            int managementPort = containerPort(container, "management");
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                assertThat(container.at(probe, "httpGet", "port").value()).isEqualTo("management");
            }
            assertThat(bind(m).getProperty("management.server.port", Integer.class))
                    .isEqualTo(managementPort);
            assertThat(containerPort(container, "http"))
                    .as("the image's EXPOSE and server.port")
                    .isEqualTo(8080);
        }
    }

    @Test
    void resourcesAreSetWithMemoryRequestEqualToTheLimit() {
        for (Manifests m : List.of(defaults, production)) {
            Node resources = gateway(m).at("resources");
            for (String side : List.of("requests", "limits")) {
                assertThat(resources.at(side).map()).containsKeys("cpu", "memory");
            }
            assertThat(resources.at("requests", "memory").value())
                    .isEqualTo(resources.at("limits", "memory").value());
            assertThat(bind(m).getProperty("JAVA_TOOL_OPTIONS")).contains("-XX:MaxRAMPercentage=");
        }
    }

    @Test
    void aStoppingPodDrainsBeforeTheKubeletKillsIt() {
        for (Manifests m : List.of(defaults, production)) {
            Node pod = Node.of(m.one("Deployment")).at("spec", "template", "spec");
            List<?> preStop = (List<?>)
                    gateway(m).at("lifecycle", "preStop", "exec", "command").value();
            assertThat(preStop.get(0)).isEqualTo("sleep");
            long sleep = Long.parseLong(preStop.get(1).toString());
            Duration drain = Binder.get(bind(m))
                    .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                    .get();
            assertThat(drain).as("streams may run for minutes").isGreaterThanOrEqualTo(Duration.ofSeconds(60));
            long grace = ((Number) pod.at("terminationGracePeriodSeconds").value()).longValue();
            assertThat(grace).isGreaterThan(sleep + drain.toSeconds());
            assertThat(Node.of(m.one("Deployment"))
                            .at("spec", "strategy", "rollingUpdate", "maxUnavailable")
                            .value())
                    .isEqualTo(0);
        }
    }

    @Test
    void thePodRunsAsTheImagesNonRootUserOnAReadOnlyRootWithATmpEmptyDir() throws IOException {
        String imageUser = Dockerfile.parse(ROOT.resolve("Dockerfile")).last().user();
        for (Manifests m : List.of(defaults, production)) {
            Node pod = Node.of(m.one("Deployment")).at("spec", "template", "spec");
            Node podSecurity = pod.at("securityContext");
            assertThat(podSecurity.at("runAsNonRoot").value()).isEqualTo(true);
            assertThat(podSecurity.at("runAsUser").value() + ":"
                            + podSecurity.at("runAsGroup").value())
                    .as("the Dockerfile's USER")
                    .isEqualTo(imageUser);
            Node security = gateway(m).at("securityContext");
            assertThat(security.at("readOnlyRootFilesystem").value()).isEqualTo(true);
            assertThat(security.at("allowPrivilegeEscalation").value()).isEqualTo(false);
            assertThat(security.at("capabilities", "drop").value()).isEqualTo(List.of("ALL"));
            assertThat(pod.at("automountServiceAccountToken").value()).isEqualTo(false);
            String tmpVolume = mount(gateway(m), "/tmp").string("name");
            assertThat(volume(pod, tmpVolume).has("emptyDir")).isTrue();
        }
    }

    // --- configuration: tiers.yaml, secrets, environment ----------------------------------------

    @Test
    void theChartsTiersYamlIsTheRepositorysOwn() throws IOException {
        assertThat(Files.readString(CHART.resolve("files/tiers.yaml")))
                .as("helm/sluice/files/tiers.yaml must be a copy of tiers.yaml: cp tiers.yaml helm/sluice/files/")
                .isEqualTo(Files.readString(ROOT.resolve("tiers.yaml")));
    }

    @Test
    void theTiersConfigMapHoldsTiersYamlMountedWhereSluiceTiersPathPoints() throws IOException {
        String rootTiers = Files.readString(ROOT.resolve("tiers.yaml"));
        for (Manifests m : List.of(defaults, production)) {
            Map<String, Object> configMap = tiersConfigMap(m);
            assertThat(Node.of(configMap).at("data", "tiers.yaml").value()).isEqualTo(rootTiers);

            Node pod = Node.of(m.one("Deployment")).at("spec", "template", "spec");
            String tiersPath = bind(m).getProperty("sluice.tiers.path");
            assertThat(Binder.get(bind(m))
                            .bind("sluice", SluiceProperties.class)
                            .get()
                            .tiersPath())
                    .isEqualTo(tiersPath);
            Path path = Path.of(tiersPath);
            Node mount = mount(gateway(m), path.getParent().toString());
            assertThat(mount.at("readOnly").value()).isEqualTo(true);
            Node volume = volume(pod, mount.string("name"));
            assertThat(volume.at("configMap", "name").value())
                    .isEqualTo(Node.of(configMap).at("metadata", "name").value());
            assertThat(volume.at("configMap", "items", 0, "key").value()).isEqualTo("tiers.yaml");
            assertThat(volume.at("configMap", "items", 0, "path").value())
                    .isEqualTo(path.getFileName().toString());
            assertThat(Node.of(m.one("Deployment"))
                            .at("spec", "template", "metadata", "annotations")
                            .string("checksum/tiers"))
                    .as("a tiers.yaml change rolls the pods")
                    .hasSize(64);
        }
    }

    @Test
    void tiersTextFromValuesReplacesTheCopy() {
        String text = "tiers: {}\n# from values\n";
        Manifests m = HelmCharts.template(List.of(), Map.of("tiers.content", text));
        assertThat(Node.of(tiersConfigMap(m)).at("data", "tiers.yaml").value()).isEqualTo(text);
    }

    @Test
    void secretsAreReferencedByNameNeverInlined() {
        assertThat(production.has("Secret")).as("the chart creates no Secret").isFalse();
        Map<String, Node> env = env(production);
        Map<String, String> expected = Map.of(
                "SLUICE_PROVIDER_API_KEY", "sluice-provider/api-key",
                "SLUICE_ADMIN_PASSWORD", "sluice-admin/password",
                "SPRING_DATA_REDIS_URL", "sluice-redis/url");
        expected.forEach((name, ref) -> {
            Node var = env.get(name);
            assertThat(var).as(name).isNotNull();
            assertThat(var.has("value")).as(name + " has no literal value").isFalse();
            Node key = var.at("valueFrom", "secretKeyRef");
            assertThat(key.string("name") + "/" + key.string("key")).as(name).isEqualTo(ref);
        });
    }

    @Test
    void theProviderKeyGoesIntoTheVariableTiersYamlNames() {
        String tiers = (String)
                Node.of(tiersConfigMap(production)).at("data", "tiers.yaml").value();
        List<String> keyEnvs = TiersYamlParser.parse("tiers.yaml", tiers).providers().stream()
                .map(ProviderSettings::apiKeyEnv)
                .filter(e -> !e.isEmpty())
                .toList();
        assertThat(keyEnvs).isNotEmpty();
        for (String keyEnv : keyEnvs) {
            assertThat(env(production).get(keyEnv)).as(keyEnv).isNotNull();
            assertThat(env(production).get(keyEnv).has("valueFrom")).isTrue();
        }
    }

    @Test
    void everyVariableIsOneTheGatewayBinds() throws IOException {
        Path clusterValues = Files.writeString(work.resolve("cluster.yaml"), """
                redis:
                  existingSecret: ""
                  cluster:
                    nodes: ["redis-0:6379", "redis-1:6379"]
                  password:
                    existingSecret: sluice-redis-auth
                """);
        Manifests cluster = HelmCharts.template(List.of(PRODUCTION_VALUES, clusterValues), Map.of());
        for (Manifests m : List.of(defaults, production, cluster)) {
            assertThat(env(m).keySet()).isSubsetOf(KNOWN_ENV);
        }
        StandardEnvironment prod = bind(production);
        SluiceProperties sluice =
                Binder.get(prod).bind("sluice", SluiceProperties.class).get();
        assertThat(sluice.tiersPath()).isEqualTo("/etc/sluice/tiers.yaml");
        assertThat(sluice.provider().url()).isEqualTo("https://api.openai.com/v1");
        assertThat(sluice.demoTenants()).isFalse();
        AdminProperties admin =
                Binder.get(prod).bind("sluice.admin", AdminProperties.class).get();
        assertThat(admin.user()).isEqualTo("ops");
        assertThat(admin.password()).isEqualTo("secret:sluice-admin/password");
        StoreProperties store =
                Binder.get(prod).bind("sluice.store", StoreProperties.class).get();
        assertThat(store.timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(store.redisDown().replicas()).as("autoscaling.maxReplicas").isEqualTo(12);
        assertThat(RedisConfiguredCondition.isConfigured(prod)).isTrue();
        assertThat(redis(prod).getUrl()).isEqualTo("secret:sluice-redis/url");

        StandardEnvironment clustered = bind(cluster);
        assertThat(RedisConfiguredCondition.isConfigured(clustered)).isTrue();
        assertThat(redis(clustered).getUrl()).isNull();
        assertThat(redis(clustered).getCluster().getNodes()).containsExactly("redis-0:6379", "redis-1:6379");
        assertThat(redis(clustered).getPassword()).isEqualTo("secret:sluice-redis-auth/password");

        assertThat(RedisConfiguredCondition.isConfigured(bind(defaults)))
                .as("the trial runs in memory")
                .isFalse();
    }

    // --- more than one replica -------------------------------------------------------------------

    @Test
    void moreThanOneReplicaWithoutRedisIsRefused() {
        assertThatThrownBy(() -> HelmCharts.template(List.of(), Map.of("replicaCount", 3)))
                .hasMessageContaining("more than one replica needs a shared Redis");
        assertThatThrownBy(() -> HelmCharts.template(List.of(), Map.of("autoscaling.enabled", true)))
                .hasMessageContaining("more than one replica needs a shared Redis");
    }

    @Test
    void productionScalesWithAnHpaAndKeepsTwoPodsThroughDisruptions() {
        Node deployment = Node.of(production.one("Deployment"));
        assertThat(deployment.at("spec").has("replicas"))
                .as("the HPA owns the replica count")
                .isFalse();
        Map<String, Object> podLabels =
                deployment.at("spec", "template", "metadata", "labels").map();

        Node hpa = Node.of(production.one("HorizontalPodAutoscaler"));
        assertThat(hpa.at("apiVersion").value()).isEqualTo("autoscaling/v2");
        assertThat(hpa.at("spec", "scaleTargetRef", "kind").value()).isEqualTo("Deployment");
        assertThat(hpa.at("spec", "scaleTargetRef", "name").value())
                .isEqualTo(deployment.at("metadata", "name").value());
        assertThat((Integer) hpa.at("spec", "minReplicas").value()).isGreaterThanOrEqualTo(3);
        assertThat(hpa.at("spec", "metrics", 0, "resource", "name").value()).isEqualTo("cpu");

        Node pdb = Node.of(production.one("PodDisruptionBudget"));
        assertThat(pdb.at("apiVersion").value()).isEqualTo("policy/v1");
        assertThat(pdb.at("spec", "minAvailable").value()).isEqualTo(2);
        assertThat(podLabels)
                .containsAllEntriesOf(pdb.at("spec", "selector", "matchLabels").map());
        assertThat(podLabels)
                .containsAllEntriesOf(Node.of(production.one("Service"))
                        .at("spec", "selector")
                        .map());
    }

    @Test
    void theTrialRedisIsASingleNonRootPodBehindAServiceTheGatewayPointsAt() {
        Manifests m = HelmCharts.template(List.of(), Map.of("redis.internal.enabled", true, "replicaCount", 2));
        Node redis = Node.of(m.one("Deployment", "redis"));
        assertThat(redis.at("spec", "replicas").value()).isEqualTo(1);
        Node container = redis.at("spec", "template", "spec", "containers", 0);
        assertThat((String) container.at("image").value()).startsWith("redis:");
        assertThat(redis.at("spec", "template", "spec", "securityContext", "runAsNonRoot")
                        .value())
                .isEqualTo(true);
        Node service = Node.of(m.one("Service", "redis"));
        assertThat(service.at("spec", "selector").map())
                .isEqualTo(redis.at("spec", "selector", "matchLabels").map());
        String url = "redis://" + service.at("metadata", "name").value() + ":"
                + service.at("spec", "ports", 0, "port").value();
        assertThat(redis(bind(m)).getUrl()).isEqualTo(url);
        assertThat(Node.of(m.one("Service", "gateway")).at("spec", "selector").map())
                .as("the gateway's Service does not select the Redis pod")
                .isNotEqualTo(service.at("spec", "selector").map());
    }

    // --- monitoring -----------------------------------------------------------------------------

    @Test
    void theServiceMonitorScrapesPrometheusOnTheServicesManagementPort() {
        Node monitor = Node.of(production.one("ServiceMonitor"));
        assertThat(monitor.at("apiVersion").value()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.at("metadata", "labels", "release").value()).isEqualTo("kube-prometheus-stack");
        Node endpoint = monitor.at("spec", "endpoints", 0);
        assertThat(endpoint.at("path").value()).isEqualTo("/actuator/prometheus");
        Node service = Node.of(production.one("Service", "gateway"));
        assertThat(service.at("metadata", "labels").map())
                .containsAllEntriesOf(
                        monitor.at("spec", "selector", "matchLabels").map());
        Node port = service.at("spec", "ports").list().stream()
                .filter(p -> endpoint.at("port").value().equals(p.string("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "the Service has no port " + endpoint.at("port").value()));
        assertThat(port.at("targetPort").value()).isEqualTo("management");
    }

    @Test
    void thePrometheusRuleCarriesTheAlertsFileAndTheDashboardConfigMapTheJson() throws IOException {
        Manifests m = HelmCharts.template(
                List.of(), Map.of("metrics.prometheusRule.enabled", true, "metrics.dashboard.enabled", true));
        Object rendered = Node.of(m.one("PrometheusRule")).at("spec", "groups").value();
        Path alerts = CHART.resolve("alerts/sluice-rules.yaml");
        Object file = Files.exists(alerts) ? HelmCharts.loadYaml(alerts).get("groups") : null;
        DumperOptions block = new DumperOptions();
        block.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        block.setWidth(200);
        assertThat(rendered)
                .as(
                        "helm/sluice/alerts/sluice-rules.yaml must be the PrometheusRule's groups rendered with "
                                + "the default values (templates/_alerts.tpl), i.e.:%n%s",
                        new Yaml(block).dump(Map.of("groups", rendered)))
                .isEqualTo(file);

        Node dashboard = Node.of(dashboardConfigMap(m));
        assertThat(dashboard.at("metadata", "labels", "grafana_dashboard").value())
                .isEqualTo("1");
        String json = (String) dashboard.at("data", "sluice.json").value();
        assertThat(json).isEqualTo(Files.readString(CHART.resolve("dashboards/sluice.json")));
        assertThat(JsonMapper.builder().build().readTree(json).get("title").asString())
                .isEqualTo("Sluice");

        Node productionRule = Node.of(production.one("PrometheusRule"));
        assertThat(productionRule
                        .at("spec", "groups", 0, "rules", 0, "labels", "team")
                        .value())
                .isEqualTo("platform");
    }

    @Test
    void theQueueWaitAlertFollowsItsThresholdValue() {
        Manifests m = HelmCharts.template(
                List.of(),
                Map.of("metrics.prometheusRule.enabled", true, "metrics.prometheusRule.queueWaitP95Seconds", 12));
        Node rule = Node.of(m.one("PrometheusRule")).at("spec", "groups", 0, "rules").list().stream()
                .filter(r -> "SluiceQueueWaitHigh".equals(r.string("alert")))
                .findFirst()
                .orElseThrow();
        assertThat(rule.string("expr"))
                .contains("sluice_queue_wait_seconds_bucket")
                .endsWith("> 12");
        assertThat(rule.string("for")).isEqualTo("10m");
    }

    // --- helpers ----------------------------------------------------------------------------------

    static Node gateway(Manifests m) {
        Node containers = Node.of(m.one("Deployment", "gateway")).at("spec", "template", "spec", "containers");
        return containers.list().stream()
                .filter(c -> "gateway".equals(c.string("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no gateway container"));
    }

    static int containerPort(Node container, String name) {
        return container.at("ports").list().stream()
                .filter(p -> name.equals(p.string("name")))
                .map(p -> ((Number) p.at("containerPort").value()).intValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container port " + name));
    }

    static Node mount(Node container, String path) {
        return container.at("volumeMounts").list().stream()
                .filter(v -> path.equals(v.string("mountPath")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at " + path));
    }

    static Node volume(Node podSpec, String name) {
        return podSpec.at("volumes").list().stream()
                .filter(v -> name.equals(v.string("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    static Map<String, Object> tiersConfigMap(Manifests m) {
        return m.ofKind("ConfigMap").stream()
                .filter(c -> Node.of(c).at("data").has("tiers.yaml"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap with tiers.yaml"));
    }

    static Map<String, Object> dashboardConfigMap(Manifests m) {
        return m.ofKind("ConfigMap").stream()
                .filter(c -> Node.of(c).at("data").has("sluice.json"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap with sluice.json"));
    }

    /** The gateway container's env, by name. */
    static Map<String, Node> env(Manifests m) {
        Map<String, Node> out = new LinkedHashMap<>();
        for (Node var : gateway(m).at("env").list()) {
            assertThat(out.put(var.string("name"), var))
                    .as("duplicate env " + var.string("name"))
                    .isNull();
        }
        return out;
    }

    /**
     * A Spring environment holding exactly the Deployment's variables, read the way the
     * gateway reads its own (relaxed binding of environment variables); a variable from a
     * Secret reads as {@code secret:<name>/<key>}.
     */
    static StandardEnvironment bind(Manifests m) {
        Map<String, Object> vars = new LinkedHashMap<>();
        env(m).forEach((name, var) -> {
            if (var.has("value")) {
                vars.put(name, var.string("value"));
            } else {
                Node ref = var.at("valueFrom", "secretKeyRef");
                vars.put(name, "secret:" + ref.string("name") + "/" + ref.string("key"));
            }
        });
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        // Named as the real one: Boot applies its environment-variable mapping to a source of this name only.
        environment
                .getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, vars));
        return environment;
    }

    static DataRedisProperties redis(StandardEnvironment environment) {
        return Binder.get(environment).bindOrCreate("spring.data.redis", DataRedisProperties.class);
    }
}
