package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.OpenAiErrors;
import java.time.Duration;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferUtils;
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
    /**
     * A refused request's body is read and dropped, up to this much and this long, before the
     * answer: a server that answers and closes while the body is still arriving makes the
     * client's TCP stack reset the connection, and the client sees the reset, not the answer.
     */
    static final long DRAIN_BYTES = 1 << 20;
    static final Duration DRAIN_TIME = Duration.ofMillis(500);

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String rawPath = request.getURI().getRawPath();
        if (rawPath == null || !rawPath.startsWith("/v1")) return chain.filter(exchange);
        ApiSurface.Refusal refusal = ApiSurface.check(request.getMethod().name(), rawPath,
                request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
        if (refusal == null) return chain.filter(exchange);
        if (refusal.allow() != null) exchange.getResponse().getHeaders().set(HttpHeaders.ALLOW, refusal.allow());
        return drain(request).then(Mono.defer(() ->
                OpenAiErrors.write(exchange, refusal.status(), "invalid_request_error", refusal.code(), refusal.message(), Map.of())));
    }

    private static Mono<Void> drain(ServerHttpRequest request) {
        return request.getBody()
                .scan(0L, (total, buffer) -> {
                    long read = total + buffer.readableByteCount();
                    DataBufferUtils.release(buffer);
                    return read;
                })
                .takeUntil(total -> total >= DRAIN_BYTES)
                .then()
                .timeout(DRAIN_TIME, Mono.empty())
                .onErrorResume(e -> Mono.empty());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }
}
