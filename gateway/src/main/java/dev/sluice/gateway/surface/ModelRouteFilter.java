package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A model that no provider serves (no route names it, no provider lists it or takes any model)
 * is a 404 {@code model_not_found} in OpenAI's shape, before anything is charged: the tenant
 * named something this gateway cannot send anywhere.
 */
public final class ModelRouteFilter implements GlobalFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String model = SluiceAttributes.MODEL.get(exchange);
        if (model == null || SluiceAttributes.config(exchange).serves(model)) return chain.filter(exchange);
        return OpenAiErrors.modelNotFound(exchange, model);
    }

    @Override
    public int getOrder() {
        return FilterOrder.ROUTE;
    }
}
