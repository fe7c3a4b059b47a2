package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole of tiers.yaml, immutable and validated.
 *
 * @param routes model → the names of the providers that serve it, in the order they are tried;
 *               a model without a route goes to the providers that serve it, in document order
 */
public record SluiceConfig(
        Map<String, Tier> tiers,
        LadderSettings ladder,
        AbuseSettings abuse,
        List<ProviderSettings> providers,
        Map<String, List<String>> routes,
        List<DemoTenant> demoTenants) {

    public SluiceConfig {
        if (tiers.isEmpty()) throw new IllegalArgumentException("at least one tier is needed");
        if (providers.isEmpty()) throw new IllegalArgumentException("at least one provider is needed");
        tiers = Map.copyOf(tiers);
        List<ProviderSettings> known = List.copyOf(providers);
        providers = known;
        Map<String, List<String>> copied = new LinkedHashMap<>();
        routes.forEach((model, names) -> {
            for (String n : names) {
                ProviderSettings p = known.stream()
                        .filter(x -> x.name().equals(n))
                        .findFirst()
                        .orElseThrow(
                                () -> new IllegalArgumentException("route " + model + " names unknown provider " + n));
                if (!p.serves(model))
                    throw new IllegalArgumentException("route " + model + ": " + n + " does not serve it");
            }
            if (names.isEmpty()) throw new IllegalArgumentException("route " + model + " names no provider");
            copied.put(model, List.copyOf(names));
        });
        routes = Collections.unmodifiableMap(copied);
        demoTenants = List.copyOf(demoTenants);
    }

    public SluiceConfig(
            Map<String, Tier> tiers,
            LadderSettings ladder,
            AbuseSettings abuse,
            List<ProviderSettings> providers,
            List<DemoTenant> demoTenants) {
        this(tiers, ladder, abuse, providers, Map.of(), demoTenants);
    }

    public Optional<Tier> tier(String name) {
        return Optional.ofNullable(tiers.get(name));
    }

    public Optional<ProviderSettings> provider(String name) {
        for (ProviderSettings p : providers) if (p.name().equals(name)) return Optional.of(p);
        return Optional.empty();
    }

    /**
     * The providers that may serve {@code model}, in the order they are tried: its route, else
     * every provider that lists it or takes any model, in document order. Empty: no provider
     * serves it (404 model_not_found). A request that names no model (the endpoints that are not
     * counted, e.g. files) goes to the first provider: such calls cannot move between accounts.
     */
    public List<ProviderSettings> route(String model) {
        if (model == null) return List.of(providers.get(0));
        List<String> named = routes.get(model);
        List<ProviderSettings> out = new ArrayList<>(named == null ? providers.size() : named.size());
        if (named != null) {
            for (String n : named) provider(n).ifPresent(out::add);
            return out;
        }
        for (ProviderSettings p : providers) if (p.serves(model)) out.add(p);
        return out;
    }

    /** Whether some provider serves {@code model}: {@code !route(model).isEmpty()}, without building the route. */
    public boolean serves(String model) {
        if (model == null || routes.containsKey(model)) return true;
        for (ProviderSettings p : providers) if (p.serves(model)) return true;
        return false;
    }

    /** The provider a model is listed under (the first of its route), for the model list's {@code owned_by}. */
    public ProviderSettings providerFor(String model) {
        List<ProviderSettings> route = route(model);
        return route.isEmpty() ? providers.get(0) : route.get(0);
    }

    /** The same configuration with other providers (SLUICE_PROVIDER_URL's override); routes name providers, so they stay. */
    public SluiceConfig withProviders(List<ProviderSettings> replaced) {
        return new SluiceConfig(tiers, ladder, abuse, replaced, routes, demoTenants);
    }
}
