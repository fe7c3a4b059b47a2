package dev.sluice.gateway.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings that come from the environment rather than tiers.yaml. Each is a nested group so
 * that the environment variable with underscores binds: {@code SLUICE_TIERS_PATH},
 * {@code SLUICE_PROVIDER_URL}, {@code SLUICE_DEMO_TENANTS}.
 *
 * @param tiers    {@code sluice.tiers.path}: tiers.yaml to load; empty: ./tiers.yaml, else the embedded copy
 * @param provider {@code sluice.provider.url}: the upstream's base URL; empty: tiers.yaml's, else the lab provider
 * @param demo     {@code sluice.demo.tenants}: load tiers.yaml's demo tenants; unset: only with the lab provider
 */
@ConfigurationProperties("sluice")
public record SluiceProperties(Tiers tiers, Provider provider, Demo demo) {
    public SluiceProperties {
        tiers = tiers == null ? new Tiers("") : tiers;
        provider = provider == null ? new Provider("") : provider;
        demo = demo == null ? new Demo(null) : demo;
    }

    public String tiersPath() {
        return tiers.path();
    }

    public Boolean demoTenants() {
        return demo.tenants();
    }

    public record Tiers(String path) {
        public Tiers {
            path = path == null ? "" : path.trim();
        }
    }

    public record Provider(String url) {
        public Provider {
            url = url == null ? "" : url.trim();
        }
    }

    public record Demo(Boolean tenants) {
    }
}
