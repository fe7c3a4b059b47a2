package dev.sluice.gateway.tenant;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DemoTenant;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.store.RedisWatch;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.redis.RedisOrganisationStore;
import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

@Configuration(proxyBeanMethods = false)
public class TenantConfiguration {
    private static final Logger log = LoggerFactory.getLogger(TenantConfiguration.class);

    @Bean
    TenantStore tenantStore(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            ObjectProvider<RedisWatch> watch,
            StoreState state,
            ConfigRegistry config,
            SluiceProperties props,
            StoreProperties settings) {
        Duration timeout = settings.timeout();
        Duration startupTimeout = settings.startupTimeout();
        if (mode != StoreMode.REDIS) {
            TenantStore store = new InMemoryTenantStore();
            seedDemoTenants(store, config.current(), props, startupTimeout);
            return store;
        }
        RedisWatch w = watch.getObject(); // probed Redis once already
        RedisTenantStore store = new RedisTenantStore(redis.getObject(), System::nanoTime, state, timeout);
        if (demoEnabled(config.current(), props)) {
            // Known before Redis answers, so a gateway started without Redis serves them by their tier's policy.
            for (DemoTenant d : config.current().demoTenants())
                store.know(d.keySha256(), new Tenant(d.id(), d.tier(), d.suspended()));
            // An empty Redis (a restart without persistence) gets them back without a restart of the gateway.
            w.addSeeder(
                    "demo tenants",
                    () -> Mono.fromRunnable(
                                    () -> seedDemoTenants(store, config.current(), props, timeout.multipliedBy(4)))
                            .subscribeOn(Schedulers.boundedElastic())
                            .then());
        }
        w.addRefresher("known key hashes", store::refreshKnown);
        if (state.up()) {
            try {
                seedDemoTenants(store, config.current(), props, startupTimeout);
            } catch (RuntimeException e) { // the watch seeds them when Redis answers
                log.warn("Demo tenants not seeded at start ({}); they will be when Redis answers", e.toString());
            }
        }
        return store;
    }

    @Bean
    OrganisationStore organisationStore(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            ObjectProvider<RedisWatch> watch,
            StoreState state,
            StoreProperties settings) {
        if (mode != StoreMode.REDIS) return new InMemoryOrganisationStore();
        RedisOrganisationStore store =
                new RedisOrganisationStore(redis.getObject(), System::nanoTime, state, settings.timeout());
        watch.getObject().addRefresher("known organisations", store::refreshKnown);
        return store;
    }

    static boolean demoEnabled(SluiceConfig config, SluiceProperties props) {
        // Only where nothing real is configured: the demo keys are printed in the README.
        boolean labProvider =
                config.providers().stream().allMatch(p -> p.baseUrl().isEmpty());
        boolean enabled = props.demoTenants() != null ? props.demoTenants() : labProvider;
        return enabled && !config.demoTenants().isEmpty();
    }

    /**
     * Demo tenants exist for the quickstart and the lab: loaded when the lab provider serves
     * (no upstream configured) unless SLUICE_DEMO_TENANTS says otherwise.
     */
    static void seedDemoTenants(TenantStore store, SluiceConfig config, SluiceProperties props, Duration timeout) {
        if (!demoEnabled(config, props)) return;
        for (DemoTenant d : config.demoTenants()) {
            // Created once: a restart must not undo what operators changed since (suspension, tier, revoked key).
            Boolean created =
                    store.create(new Tenant(d.id(), d.tier(), d.suspended())).block(timeout);
            if (Boolean.TRUE.equals(created))
                store.addKey(d.id(), d.keySha256()).block(timeout);
        }
        log.info(
                "Demo tenants loaded: {} (keys in README.md; for the quickstart and the lab only)",
                config.demoTenants().stream().map(DemoTenant::id).toList());
    }
}
