package dev.sluice.lab.provider;

import dev.sluice.gateway.dispatch.upstream.BuiltInUpstream;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * Starts the lab provider beside the gateway when no real provider is configured, and offers it to
 * dispatch as the {@link BuiltInUpstream}, so the quickstart works with no key and no network.
 * Auto-configuration: present only where this module is on the class path (never in the production
 * jar). Setting {@code sluice.provider.url} (or {@code SLUICE_PROVIDER_URL}) turns it off.
 */
@AutoConfiguration
@ConditionalOnExpression("'${sluice.provider.url:}'.isBlank()")
@EnableConfigurationProperties(LabProperties.class)
public class LabProviderConfiguration {

    /**
     * Started when the bean is created, not in a later lifecycle phase, so any bean that needs the
     * lab's {@link LabProviderServer#baseUrl()} (routes, with port 0 in tests) gets a bound port.
     */
    @Bean(initMethod = "start", destroyMethod = "stop")
    public LabProviderServer labProviderServer(LabProperties properties) {
        return new LabProviderServer(properties.limits(), properties.ways(), properties.port());
    }

    /** Where dispatch sends tenant calls while no provider URL is set. */
    @Bean
    public BuiltInUpstream labUpstream(LabProviderServer lab) {
        return lab::baseUrl;
    }

    /** The provider's counters on the gateway's own port, for users who only know :8080. */
    @Bean
    public RouterFunction<ServerResponse> labProviderRoutes(LabProviderServer lab) {
        return RouterFunctions.route()
                .GET(
                        "/lab/provider/stats",
                        request -> ServerResponse.ok()
                                .contentType(MediaType.APPLICATION_JSON)
                                .bodyValue(lab.statsJson()))
                .POST("/lab/provider/reset", request -> {
                    lab.reset();
                    return ServerResponse.ok()
                            .contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(lab.statsJson());
                })
                .build();
    }
}
