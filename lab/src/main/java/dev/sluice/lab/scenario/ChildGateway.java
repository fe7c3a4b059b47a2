package dev.sluice.lab.scenario;

import dev.sluice.gateway.SluiceApplication;
import dev.sluice.gateway.dispatch.budget.ProviderClock;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.lab.provider.LabLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Case 4's Sluice: a real gateway, its own Spring application on a free port, in front of the
 * case's lab provider. It is started from the command line or from inside a running gateway
 * (the admin API), so it shares nothing with its host: its environment holds only what is set
 * here (no environment variables or system properties, so no Redis, provider key or port of the
 * host's), the in-memory store, no JMX, no global meter registry, Netty resources of its own
 * (closing it must not dispose the host's), and the host's logging left as it is.
 *
 * <p>Its provider clock is the run's {@link ScaledClock}: the budget's minute, the door's
 * estimates and the max wait all count in seed units, like the provider behind it.
 */
final class ChildGateway implements AutoCloseable {
    static final String TIER = "lab";
    /** A model with a budget of its own and no limits worth the name: pages sent to warm the gateway up never touch the seed's budget. */
    static final String WARM_UP_MODEL = "lab-warm-up";
    /** Runs on one gateway: each sends its pages as a model of its own, with a budget of its own (the seed's limits). */
    static final int RUNS = 2;

    /** The model run {@code run} (from 1) sends: a gpt-4o-mini to every tokenizer, a budget of its own to the gateway. */
    static String model(int run) {
        return "gpt-4o-mini-lab-run-" + run;
    }

    private final ConfigurableApplicationContext context;
    private final Path tiers;
    private final List<String> keys = new ArrayList<>();

    private ChildGateway(ConfigurableApplicationContext context, Path tiers) {
        this.context = context;
        this.tiers = tiers;
    }

    /**
     * @param lease the dispatch lease, on the scaled clock: long enough for any call, short enough
     *              that the dispatcher's wake-up hint ({@code lease / 2 / in-flight}) stays under a slot
     */
    static ChildGateway start(String labBaseUrl, LabLimits limits, double headroom, ScaledClock clock, Duration lease) {
        Path tiers = writeTiers(labBaseUrl, limits, headroom);
        SpringApplication app = new SpringApplication(SluiceApplication.class);
        app.setWebApplicationType(WebApplicationType.REACTIVE);
        app.setBannerMode(Banner.Mode.OFF);
        app.setLogStartupInfo(false);
        app.setRegisterShutdownHook(false);
        // The host (a gateway, or the command) owns logging: a second initialisation would reset it, and
        // Spring Cloud's listener would switch it off (Boot's deny-all filter) for the host as well.
        app.setListeners(
                app.getListeners().stream().filter(l -> !touchesLogging(l)).toList());
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        app.setEnvironment(env);
        app.addInitializers(ctx -> {
            GenericApplicationContext g = (GenericApplicationContext) ctx;
            g.registerBean(ProviderClock.class, () -> new ProviderClock(clock));
            g.registerBean(ReactorResourceFactory.class, () -> {
                ReactorResourceFactory f = new ReactorResourceFactory();
                f.setUseGlobalResources(false);
                f.setShutdownQuietPeriod(Duration.ZERO);
                return f;
            });
        });
        ConfigurableApplicationContext context = app.run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--server.shutdown=immediate",
                "--spring.application.name=sluice-lab-case4",
                "--spring.jmx.enabled=false",
                "--spring.main.lazy-initialization=true",
                "--management.metrics.use-global-registry=false",
                "--sluice.provider.url=" + labBaseUrl,
                "--sluice.tiers.path=" + tiers,
                "--sluice.demo.tenants=false",
                "--sluice.edge.max-connections-per-client=0", // the lab's whole crowd comes from this one address
                "--sluice.admin.password=" + ApiKeys.generate(), // never used; set so none is generated and logged
                "--sluice.dispatch.lease=" + lease.toMillis() + "ms");
        return new ChildGateway(context, tiers);
    }

    private static boolean touchesLogging(Object listener) {
        return listener instanceof LoggingApplicationListener
                || listener.getClass()
                        .getName()
                        .equals("org.springframework.cloud.bootstrap.LoggingSystemShutdownListener");
    }

    int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** Keys for users {@code 0..users-1}, each its own tenant on the lab tier; made on first need. */
    synchronized String key(int user) {
        while (keys.size() <= user) {
            String id = "lab-user-" + keys.size();
            String key = ApiKeys.generate();
            TenantStore store = context.getBean(TenantStore.class);
            store.save(new Tenant(id, TIER, false))
                    .then(store.addKey(id, ApiKeys.sha256Hex(key)))
                    .block(Duration.ofSeconds(10));
            keys.add(key);
        }
        return keys.get(user);
    }

    /**
     * The lab document: one tier whose own quota is far above the provider's (only the provider's
     * budget may bind), and the provider's published limits with the gateway's headroom, once per
     * run so that a run starts on an empty budget without waiting a minute for the last one's to
     * leave it (the provider itself is reset between runs).
     */
    static String tiersYaml(String labBaseUrl, LabLimits l, double headroom) {
        StringBuilder models = new StringBuilder();
        for (int run = 1; run <= RUNS; run++) {
            models.append(String.format(
                    Locale.ROOT,
                    """
                          "%s":
                            requests-per-minute: %d
                            tokens-per-minute: %d
                            max-in-flight: %d
                            price-per-million-tokens: %s
                    """,
                    model(run),
                    l.requestsPerMinute(),
                    l.tokensPerMinute(),
                    l.maxInFlight(),
                    l.pricePerMillionTokens()));
        }
        long tenantTokens = Math.max(1_000_000_000L, l.tokensPerMinute() * 1000);
        long tenantRequests = Math.max(10_000_000L, l.requestsPerMinute() * 1000L);
        return String.format(
                Locale.ROOT,
                """
                # Written by the lab scenario runner for case 4: only the provider's budget may bind.
                tiers:
                  %s:
                    tokens-per-minute: %d
                    requests-per-minute: %d
                    burst-allowance: 1.0
                    priority: 1
                    default-max-tokens: 256
                    allow-no-downgrade: true
                    redis-down: fail-open
                providers:
                  - name: lab
                    base-url: "%s"
                    headroom: %s
                    models:
                      "*":
                        requests-per-minute: %d
                        tokens-per-minute: %d
                        max-in-flight: %d
                        price-per-million-tokens: %s
                      "%s":
                        requests-per-minute: 100000000
                        tokens-per-minute: 1000000000000
                        max-in-flight: 100000
                        price-per-million-tokens: 0
                %s""",
                TIER,
                tenantTokens,
                tenantRequests,
                labBaseUrl,
                headroom,
                l.requestsPerMinute(),
                l.tokensPerMinute(),
                l.maxInFlight(),
                l.pricePerMillionTokens(),
                WARM_UP_MODEL,
                models);
    }

    private static Path writeTiers(String labBaseUrl, LabLimits limits, double headroom) {
        try {
            Path file = Files.createTempFile("sluice-lab-tiers", ".yaml");
            Files.writeString(file, tiersYaml(labBaseUrl, limits, headroom));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            context.close();
        } finally {
            try {
                Files.deleteIfExists(tiers);
            } catch (IOException ignored) {
                // a temp file; the OS cleans it
            }
        }
    }
}
