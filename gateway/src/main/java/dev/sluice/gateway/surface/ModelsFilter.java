package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import java.nio.charset.StandardCharsets;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Answers {@code GET /v1/models} and {@code GET /v1/models/{id}} from the configuration this
 * request was authenticated under ({@link ModelCatalog}), after the tenant's key is checked
 * and before anything is estimated or charged: listing models costs no quota and no call to
 * the provider. A tier that lists its models sees only those; an unknown id, or one the tier may
 * not use, is a 404 {@code model_not_found}.
 */
public final class ModelsFilter implements GlobalFilter, Ordered {
    static final String LIST = "/v1/models";
    private static final String ONE = LIST + "/";

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String path = exchange.getRequest().getURI().getRawPath();
        boolean list = path.equals(LIST);
        if (!(list || path.startsWith(ONE)) || exchange.getRequest().getMethod() != HttpMethod.GET) {
            return chain.filter(exchange);
        }
        ModelCatalog catalog = ModelCatalog.of(SluiceAttributes.config(exchange), SluiceAttributes.tier(exchange));
        if (list) return json(exchange.getResponse(), catalog.listJson());
        String id = path.substring(ONE.length()); // ApiSurface let only plain segments through: no decoding needed
        if (!catalog.contains(id)) {
            return OpenAiErrors.modelNotFound(exchange, id);
        }
        return json(exchange.getResponse(), catalog.modelJson(id));
    }

    private static Mono<Void> json(ServerHttpResponse response, String body) {
        response.setStatusCode(HttpStatus.OK);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body.getBytes(StandardCharsets.UTF_8))));
    }

    @Override
    public int getOrder() {
        return FilterOrder.MODELS;
    }
}
