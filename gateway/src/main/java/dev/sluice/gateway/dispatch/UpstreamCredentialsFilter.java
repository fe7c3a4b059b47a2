package dev.sluice.gateway.dispatch;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Swaps the tenant's key for the provider's and maps {@code /v1/...} onto the upstream's
 * prefix. The tenant's key must never reach the provider.
 */
final class UpstreamCredentialsFilter implements GatewayFilter {
    private final UpstreamTarget target;

    UpstreamCredentialsFilter(UpstreamTarget target) {
        this.target = target;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        ServerHttpRequest original = exchange.getRequest();
        // RouteToRequestUrlFilter (later) puts the route's origin in front of this path.
        String path = target.pathFor(original.getURI().getRawPath());
        ServerHttpRequest request = original.mutate().path(path).headers(h -> {
            h.remove(HttpHeaders.AUTHORIZATION);
            h.remove("x-api-key");
            if (target.apiKey() != null) h.setBearerAuth(target.apiKey());
        }).build();
        return chain.filter(exchange.mutate().request(request).build());
    }
}
