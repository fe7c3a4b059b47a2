package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.ConfigProblem;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.config.HttpClientCustomizer;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * One route: every tenant call under {@code /v1/**}. Which provider an attempt goes to is the
 * dispatch stage's choice ({@link UpstreamTargets}); {@link UpstreamCredentialsFilter} puts its
 * URL and key on the call. The route's own URI is a placeholder that no call reaches.
 */
@Configuration(proxyBeanMethods = false)
public class UpstreamRoutes {
    public static final String ROUTE_ID = "llm-provider";
    static final String PLACEHOLDER = "http://upstream.sluice.invalid";

    @Bean
    UpstreamTargets upstreamTargets(ConfigRegistry config, ObjectProvider<BuiltInUpstream> builtIn, Environment env) {
        if (builtIn.getIfAvailable() == null) {
            List<String> without = config.current().providers().stream()
                    .filter(p -> p.baseUrl().isEmpty())
                    .map(ProviderSettings::name)
                    .toList();
            if (!without.isEmpty()) {
                throw new ConfigException(
                        "SLUICE_PROVIDER_URL",
                        List.of(
                                new ConfigProblem(
                                        "sluice.provider.url",
                                        0,
                                        "provider(s) " + String.join(", ", without)
                                                + " have no base-url, and no built-in provider runs: set"
                                                + " base-url in tiers.yaml, or SLUICE_PROVIDER_URL for the first, e.g. https://api.openai.com/v1"
                                                + " (the simulated provider runs only in the quickstart, module lab-provider)")));
            }
        }
        return new UpstreamTargets(config, builtIn, env);
    }

    @Bean
    UpstreamCredentialsFilter upstreamCredentialsFilter() {
        return new UpstreamCredentialsFilter();
    }

    @Bean
    ProviderConnection.Filter providerConnectionFilter() {
        return new ProviderConnection.Filter();
    }

    /** Each call learns which provider connection it is on ({@link ProviderConnection}). */
    @Bean
    HttpClientCustomizer providerConnectionRecorder() {
        return ProviderConnection::recorded;
    }

    @Bean
    RouteLocator upstreamRouteLocator(RouteLocatorBuilder builder) {
        return builder.routes()
                .route(ROUTE_ID, r -> r.path("/v1/**").uri(PLACEHOLDER))
                .build();
    }
}
