package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.lab.LabProviderServer;
import dev.sluice.gateway.tier.ConfigRegistry;
import dev.sluice.gateway.tier.ProviderSettings;
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
 * One route: every tenant call under {@code /v1/**} goes to the configured upstream, or to
 * the built-in lab provider when none is configured. Routes are built lazily (when the
 * gateway first asks for them, after the lab provider has bound its port).
 */
@Configuration(proxyBeanMethods = false)
public class UpstreamRoutes {
    public static final String ROUTE_ID = "llm-provider";
    private static final Logger log = LoggerFactory.getLogger(UpstreamRoutes.class);

    @Bean
    Supplier<UpstreamTarget> upstreamTarget(ConfigRegistry config, ObjectProvider<LabProviderServer> lab, Environment env) {
        return () -> {
            ProviderSettings provider = config.current().providers().get(0);
            if (provider.baseUrl().isEmpty()) {
                LabProviderServer server = lab.getIfAvailable();
                if (server == null) throw new IllegalStateException("no provider configured and the lab provider is off");
                return UpstreamTarget.of(server.baseUrl(), null);
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
