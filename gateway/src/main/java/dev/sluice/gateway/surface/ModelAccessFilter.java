package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.Tier;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A model the tier does not list under {@code models:} is a 403 {@code model_not_allowed}, in
 * OpenAI's shape, once the model is known (the estimate stage read it from the body, the ownership
 * stage from a batch's file) and before anything is charged: the tenant's windows are not touched.
 * A tier without a list opens every model; a request that names no model passes. The ladder never
 * downgrades to a model the tier may not use: the parser refuses a downgrade target off the list.
 */
public final class ModelAccessFilter implements GlobalFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String model = SluiceAttributes.MODEL.get(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        if (tier.models().allows(model)) return chain.filter(exchange);
        return OpenAiErrors.invalidRequest(
                exchange, HttpStatus.FORBIDDEN, "model_not_allowed", refusal(tier, model), "model");
    }

    /** The tenant's message: which model, which tier, what it may use instead, and who can change it. */
    static String refusal(Tier tier, String model) {
        return "The model '" + model + "' is not available to tier '" + tier.name() + "'. Models open to it: "
                + String.join(", ", tier.models().allowed())
                + ". The operator can list it under the tier's models in tiers.yaml.";
    }

    @Override
    public int getOrder() {
        return FilterOrder.MODEL_ACCESS;
    }
}
