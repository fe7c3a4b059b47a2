package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.OpenAiErrors;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The door of the tenant API: every request whose path starts with {@code /v1} is checked by
 * {@link ApiSurface} before routing, so a traversal, an unknown path, a wrong method or a form
 * body gets an OpenAI-shaped 4xx, costs no quota, and never reaches the provider or another
 * handler. A web filter, not a route filter: paths the route does not match are answered too.
 */
public final class ApiSurfaceFilter implements WebFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String rawPath = request.getURI().getRawPath();
        if (rawPath == null || !rawPath.startsWith("/v1")) return chain.filter(exchange);
        ApiSurface.Refusal refusal = ApiSurface.check(request.getMethod().name(), rawPath,
                request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
        if (refusal == null) return chain.filter(exchange);
        if (refusal.allow() != null) exchange.getResponse().getHeaders().set(HttpHeaders.ALLOW, refusal.allow());
        return OpenAiErrors.write(exchange, refusal.status(), "invalid_request_error", refusal.code(), refusal.message(), Map.of());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }
}
