package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;

/**
 * Where each provider's calls go: its base URL (or the built-in simulator's, for a provider
 * without one) and its key, read from the environment variable it names. The first provider
 * falls back to {@code SLUICE_PROVIDER_API_KEY} when it names none, as a single-provider setup
 * always did. Resolved on first use per configuration, so a tiers.yaml edit applies to the next call.
 */
public final class UpstreamTargets {
    /** The provider this attempt goes to, set by the dispatch stage, read by {@link UpstreamCredentialsFilter}. */
    public static final RequestAttribute<UpstreamTarget> ATTRIBUTE = new RequestAttribute<>("sluice.upstreamTarget");

    static final String FIRST_PROVIDER_KEY = "SLUICE_PROVIDER_API_KEY";

    private record Resolved(ProviderSettings settings, UpstreamTarget target) {}

    private final ConfigRegistry config;
    private final ObjectProvider<BuiltInUpstream> builtIn;
    private final Environment env;
    private final Map<String, Resolved> byName = new ConcurrentHashMap<>();

    UpstreamTargets(ConfigRegistry config, ObjectProvider<BuiltInUpstream> builtIn, Environment env) {
        this.config = config;
        this.builtIn = builtIn;
        this.env = env;
    }

    /** The target of {@code provider} as configured now. */
    public UpstreamTarget of(ProviderSettings provider) {
        Resolved known = byName.get(provider.name());
        if (known != null && known.settings() == provider) return known.target();
        UpstreamTarget target = resolve(provider);
        byName.put(provider.name(), new Resolved(provider, target));
        return target;
    }

    private UpstreamTarget resolve(ProviderSettings provider) {
        if (provider.baseUrl().isEmpty()) {
            BuiltInUpstream upstream = builtIn.getIfAvailable();
            if (upstream == null)
                throw new IllegalStateException(
                        "provider " + provider.name() + " has no base-url and no built-in upstream runs");
            return UpstreamTarget.of(upstream.baseUrl(), null);
        }
        boolean first = config.current().providers().get(0).name().equals(provider.name());
        String keyEnv = provider.apiKeyEnv().isEmpty() && first ? FIRST_PROVIDER_KEY : provider.apiKeyEnv();
        // Read through the Environment: the variable itself in production, a property in tests.
        String key = keyEnv.isEmpty() ? null : env.getProperty(keyEnv);
        return UpstreamTarget.of(provider.baseUrl(), key);
    }
}
