package dev.sluice.gateway.tenant;

import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.tier.ConfigRegistry;
import dev.sluice.gateway.tier.DemoTenant;
import dev.sluice.gateway.tier.SluiceConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.tenant.redis.RedisTenantStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class TenantConfiguration {
    private static final Logger log = LoggerFactory.getLogger(TenantConfiguration.class);

    @Bean
    TenantStore tenantStore(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis,
                            ConfigRegistry config, SluiceProperties props) {
        TenantStore store = mode == StoreMode.REDIS ? new RedisTenantStore(redis.getObject()) : new InMemoryTenantStore();
        seedDemoTenants(store, config.current(), props);
        return store;
    }

    @Bean
    TenantAuthenticationFilter tenantAuthenticationFilter(TenantStore tenants, ConfigRegistry config,
                                                          dev.sluice.gateway.abuse.TenantActivity activity) {
        return new TenantAuthenticationFilter(tenants, config, activity);
    }

    /**
     * Demo tenants exist for the quickstart and the lab: loaded when the lab provider serves
     * (no upstream configured) unless SLUICE_DEMO_TENANTS says otherwise.
     */
    static void seedDemoTenants(TenantStore store, SluiceConfig config, SluiceProperties props) {
        boolean labProvider = config.providers().get(0).baseUrl().isEmpty();
        boolean enabled = props.demoTenants() != null ? props.demoTenants() : labProvider;
        if (!enabled || config.demoTenants().isEmpty()) return;
        for (DemoTenant d : config.demoTenants()) {
            // Created once: a restart must not undo what operators changed since (suspension, tier, revoked key).
            Boolean created = store.create(new Tenant(d.id(), d.tier(), d.suspended())).block();
            if (Boolean.TRUE.equals(created)) store.addKey(d.id(), d.keySha256()).block();
        }
        log.info("Demo tenants loaded: {} (keys in README.md; for the quickstart and the lab only)",
                config.demoTenants().stream().map(DemoTenant::id).toList());
    }
}
