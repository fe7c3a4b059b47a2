package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.ConfigProblem;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import reactor.core.publisher.Flux;

/**
 * One route: every tenant call under {@code /v1/**} goes to the configured upstream, or to a
 * {@link BuiltInUpstream} (the quickstart's simulated provider) when none is configured. Routes are
 * built lazily (when the gateway first asks for them, after a built-in upstream has bound its port).
 */
@Configuration(proxyBeanMethods = false)
public class UpstreamRoutes {
    public static final String ROUTE_ID = "llm-provider";
    private static final Logger log = LoggerFactory.getLogger(UpstreamRoutes.class);

    @Bean
    Supplier<UpstreamTarget> upstreamTarget(ConfigRegistry config, ObjectProvider<BuiltInUpstream> builtIn, Environment env) {
        if (config.current().providers().get(0).baseUrl().isEmpty() && builtIn.getIfAvailable() == null) {
            throw new ConfigException("SLUICE_PROVIDER_URL", List.of(new ConfigProblem("sluice.provider.url", 0,
                    "is not set, and tiers.yaml's first provider has no base-url: set SLUICE_PROVIDER_URL, e.g."
                            + " https://api.openai.com/v1 (the simulated provider runs only in the quickstart, module lab-provider)")));
        }
        return () -> {
            ProviderSettings provider = config.current().providers().get(0);
            if (provider.baseUrl().isEmpty()) {
                BuiltInUpstream upstream = builtIn.getIfAvailable();
                if (upstream == null) throw new IllegalStateException("no provider URL configured and no built-in upstream");
                return UpstreamTarget.of(upstream.baseUrl(), null);
            }
            // Read through the Environment: the variable itself in production, a property in tests.
            String key = provider.apiKeyEnv().isEmpty() ? null : env.getProperty(provider.apiKeyEnv());
            return UpstreamTarget.of(provider.baseUrl(), key);
        };
    }

    @Bean
    RouteLocator upstreamRouteLocator(RouteLocatorBuilder builder, Supplier<UpstreamTarget> target) {
        return () -> Flux.defer(() -> {
            UpstreamTarget t = target.get();
            log.info("Routing /v1/** to {}", t);
            Flux<Route> routes = builder.routes()
                    .route(ROUTE_ID, r -> r.path("/v1/**")
                            .filters(f -> f.filter(new UpstreamCredentialsFilter(t)))
                            .uri(t.origin()))
                    .build().getRoutes();
            return routes;
        });
    }
}
