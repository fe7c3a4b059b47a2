package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.tenant.Tenant;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The request path's quota stage: charges the estimate to the tenant's windows before anything
 * reaches the provider ({@link QuotaLimiter}, one atomic step over every window). What no rung
 * of the ladder changes is answered here ({@link QuotaRefusals#outright}); any other answer,
 * admitted or refused, goes on to the ladder on the exchange ({@link QuotaLimiter.Outcome#ATTRIBUTE}).
 */
public class QuotaFilter implements GlobalFilter, Ordered {
    private final QuotaLimiter limiter;
    private final QuotaRefusals refusals;

    public QuotaFilter(QuotaLimiter limiter, QuotaRefusals refusals) {
        this.limiter = limiter;
        this.refusals = refusals;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        return limiter.acquire(
                        scope(limiter, exchange),
                        SluiceAttributes.tier(exchange),
                        estimate.totalTokens(),
                        SpendPrice.reserved(SluiceAttributes.config(exchange), estimate),
                        SluiceAttributes.decisionBudget(exchange))
                .flatMap(outcome -> refusals.outright(exchange, outcome).orElseGet(() -> {
                    QuotaLimiter.Outcome.ATTRIBUTE.set(exchange, outcome);
                    return chain.filter(exchange);
                }));
    }

    /** Every level the request is charged to (tenant, key, organisation), for its model now. */
    public static QuotaScope scope(QuotaLimiter limiter, ServerWebExchange exchange) {
        Tenant tenant = SluiceAttributes.tenant(exchange);
        return limiter.scope(
                tenant,
                SluiceAttributes.ORGANISATION.get(exchange),
                SluiceAttributes.KEY.get(exchange),
                SluiceAttributes.tier(exchange),
                SluiceAttributes.MODEL.get(exchange));
    }

    @Override
    public int getOrder() {
        return FilterOrder.QUOTA;
    }
}
