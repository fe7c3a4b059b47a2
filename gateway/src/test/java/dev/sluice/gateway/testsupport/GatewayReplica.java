package dev.sluice.gateway.testsupport;

import dev.sluice.gateway.SluiceApplication;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One gateway replica as its own Spring application, for tests that need two of them on one
 * Redis, a Redis of their own (cluster, a separate database), or a gateway they start and stop
 * themselves. {@code @SpringBootTest} gives one cached context per configuration; a replica is
 * the other way, and this is the one place that knows how to start it.
 *
 * <pre>{@code
 * GatewayReplica a = GatewayReplica.builder().redis(7).upstream(UPSTREAM).property("sluice.store.timeout", "10s").start();
 * a.client().get().uri("/actuator/health")...; a.close();
 * }</pre>
 */
public final class GatewayReplica implements AutoCloseable {
    private final ConfigurableApplicationContext context;

    private GatewayReplica(ConfigurableApplicationContext context) {
        this.context = context;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port the replica's server listens on (chosen at random at start). */
    public int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** A client bound to the replica over real HTTP; a loaded box gets 20 s before a response times out. */
    public WebTestClient client() {
        return WebTestClient.bindToServer()
                .baseUrl(baseUrl())
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    /** {@link #client()} with HTTP basic credentials, for the admin API. */
    public WebTestClient admin(String user, String password) {
        return client().mutate()
                .defaultHeaders(h -> h.setBasicAuth(user, password))
                .build();
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    @Override
    public void close() {
        context.close();
    }

    /** Properties as {@code --name=value} arguments, the way an operator starts a replica. */
    public static final class Builder {
        // The lab provider's own port at 0 as well: where lab-provider is on the classpath, two replicas would collide
        // on it.
        private final List<String> args = new ArrayList<>(List.of("--server.port=0", "--sluice.lab.port=0"));
        private final Map<String, Object> environment = new LinkedHashMap<>();
        private final List<ApplicationContextInitializer<ConfigurableApplicationContext>> beans = new ArrayList<>();

        private Builder() {}

        /** The shared test Redis ({@link TestRedis}), database 0. */
        public Builder redis() {
            return redisUrl(TestRedis.url());
        }

        /** A database of its own on the shared test Redis: its own tiers document, budgets and tenants. */
        public Builder redis(int database) {
            return redisUrl(TestRedis.url(database));
        }

        public Builder redisUrl(String url) {
            return property("spring.data.redis.url", url);
        }

        /** Where dispatch sends: {@code sluice.provider.url}. */
        public Builder upstream(String baseUrl) {
            return property("sluice.provider.url", baseUrl);
        }

        public Builder upstream(FakeUpstreamExtension upstream) {
            return upstream(upstream.baseUrl());
        }

        public Builder property(String name, Object value) {
            args.add("--" + name + "=" + value);
            return this;
        }

        /**
         * An environment variable as the replica sees it ({@code SLUICE_TIERS_PATH}, a provider's key), bound the
         * way Spring binds the process's own (relaxed names) but seen by this replica only: a JVM cannot set its
         * own environment. Command-line properties still win over it, as they do over the real environment.
         */
        public Builder environment(String name, Object value) {
            environment.put(name, String.valueOf(value)); // the environment holds text only
            return this;
        }

        /**
         * A bean of the replica's own, registered before the configuration's: one the product makes only when
         * missing ({@code @ConditionalOnMissingBean}), such as a {@code ProviderClock} faster than the wall.
         */
        public <T> Builder bean(Class<T> type, Supplier<T> supplier) {
            beans.add(ctx -> ((GenericApplicationContext) ctx).registerBean(type, supplier));
            return this;
        }

        /** More properties, each {@code name=value} (as in {@code @SpringBootTest(properties = ...)}). */
        public Builder properties(String... nameEqualsValue) {
            for (String p : nameEqualsValue) args.add(p.startsWith("--") ? p : "--" + p);
            return this;
        }

        public GatewayReplica start() {
            // Replicas in one JVM share Reactor Netty's global loops: closing one has cut another's
            // connection mid-answer (AdminReplicasTest, TwoReplicasShareTheQuotaTest in clean-clone CI
            // runs), and that replica's graceful shutdown then waited its whole 120 s phase for a request
            // that could no longer end. A test's close is bounded instead; one that sets its own keeps it.
            String phase = "--spring.lifecycle.timeout-per-shutdown-phase=";
            if (args.stream().noneMatch(a -> a.startsWith(phase))) args.add(phase + "10s");
            SpringApplicationBuilder app = new SpringApplicationBuilder(SluiceApplication.class);
            beans.forEach(app::initializers);
            if (!environment.isEmpty()) {
                // Named "...-systemEnvironment" so that Boot maps SLUICE_TIERS_PATH to sluice.tiers.path, as for the
                // real one.
                Map<String, Object> variables = Map.copyOf(environment);
                app.initializers(ctx -> ctx.getEnvironment()
                        .getPropertySources()
                        .addAfter(
                                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                                new SystemEnvironmentPropertySource(
                                        "replica-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                        variables)));
            }
            return new GatewayReplica(app.run(args.toArray(String[]::new)));
        }
    }
}
