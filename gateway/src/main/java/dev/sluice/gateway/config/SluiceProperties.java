package dev.sluice.gateway.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings that come from the environment rather than tiers.yaml.
 *
 * @param tiersPath   tiers.yaml to load (SLUICE_TIERS_PATH); empty: ./tiers.yaml, else the embedded copy
 * @param provider    upstream override (SLUICE_PROVIDER_URL), empty: tiers.yaml, else the lab provider
 * @param demoTenants load the demo tenants of tiers.yaml (SLUICE_DEMO_TENANTS); unset: only with the lab provider
 */
@ConfigurationProperties("sluice")
public record SluiceProperties(String tiersPath, Provider provider, Boolean demoTenants) {
    public SluiceProperties {
        provider = provider == null ? new Provider("") : provider;
    }

    public record Provider(String url) {
        public Provider {
            url = url == null ? "" : url.trim();
        }
    }
}
