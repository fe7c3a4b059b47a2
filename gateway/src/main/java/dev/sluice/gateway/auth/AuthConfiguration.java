package dev.sluice.gateway.auth;

import dev.sluice.gateway.api.RequestActivity;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.store.DecisionBudgets;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.TenantStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The first stage of the request path: the tenant's key to its tenant and tier. */
@Configuration(proxyBeanMethods = false)
public class AuthConfiguration {
    @Bean
    TenantAuthenticationFilter tenantAuthenticationFilter(
            TenantStore tenants,
            OrganisationStore organisations,
            ConfigRegistry config,
            RequestActivity activity,
            DecisionBudgets budgets,
            QuotaClock clock) {
        return new TenantAuthenticationFilter(tenants, organisations, config, activity, budgets, clock.clock());
    }
}
