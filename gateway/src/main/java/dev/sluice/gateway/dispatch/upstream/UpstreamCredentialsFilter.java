package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.api.FilterOrder;
import java.net.URI;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Sends the attempt to the provider the dispatch stage chose ({@link UpstreamTargets#ATTRIBUTE}):
 * its origin, {@code /v1/...} mapped onto its prefix, and its key in place of the tenant's. The
 * tenant's key must never reach the provider. Runs after Spring Cloud Gateway has turned the
 * route into a request URL, and replaces that URL: one route serves every provider.
 */
public final class UpstreamCredentialsFilter implements GlobalFilter, Ordered {
    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        UpstreamTarget target = UpstreamTargets.ATTRIBUTE.get(exchange);
        if (target == null)
            return Mono.error(new IllegalStateException(
                    "no provider chosen for " + exchange.getRequest().getPath()));
        ServerHttpRequest original = exchange.getRequest();
        String rawQuery = original.getURI().getRawQuery();
        String path = target.pathFor(original.getURI().getRawPath());
        URI url = URI.create(target.origin() + path + (rawQuery == null ? "" : "?" + rawQuery));
        exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_REQUEST_URL_ATTR, url);
        ServerHttpRequest request = original.mutate()
                .path(path)
                .headers(h -> {
                    h.remove(HttpHeaders.AUTHORIZATION);
                    h.remove("x-api-key");
                    if (target.apiKey() != null) h.setBearerAuth(target.apiKey());
                })
                .build();
        return chain.filter(exchange.mutate().request(request).build());
    }

    @Override
    public int getOrder() {
        return FilterOrder.UPSTREAM_CREDENTIALS;
    }
}
