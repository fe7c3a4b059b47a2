package dev.sluice.gateway.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The whole of tiers.yaml, immutable and validated. */
public record SluiceConfig(
        Map<String, Tier> tiers,
        LadderSettings ladder,
        AbuseSettings abuse,
        List<ProviderSettings> providers,
        List<DemoTenant> demoTenants) {

    public SluiceConfig {
        if (tiers.isEmpty()) throw new IllegalArgumentException("at least one tier is needed");
        if (providers.isEmpty()) throw new IllegalArgumentException("at least one provider is needed");
        tiers = Map.copyOf(tiers);
        providers = List.copyOf(providers);
        demoTenants = List.copyOf(demoTenants);
    }

    public Optional<Tier> tier(String name) {
        return Optional.ofNullable(tiers.get(name));
    }

    /** The provider that serves {@code model}: the first that lists it, else the first provider. */
    public ProviderSettings providerFor(String model) {
        return providers.stream().filter(p -> model != null && p.models().containsKey(model))
                .findFirst().orElse(providers.get(0));
    }
}
