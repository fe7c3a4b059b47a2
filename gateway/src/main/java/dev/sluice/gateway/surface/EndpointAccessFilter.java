package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.EndpointAccess;
import dev.sluice.gateway.config.Tier;
import java.util.Map;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Once the tier is known, before anything is read, charged or sent: the tier opens the
 * request's operation ({@link EndpointAccess}), or the tenant gets 403 endpoint_not_allowed,
 * naming the family and that the operator opens it in tiers.yaml. A request the surface did not
 * match cannot get here (the surface answers every /v1 path first); if one did, it is refused:
 * what the table does not know is never proxied.
 */
public final class EndpointAccessFilter implements GlobalFilter, Ordered {

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        MatchedOperation matched = MatchedOperation.ATTRIBUTE.get(exchange);
        if (matched == null) {
            String target = exchange.getRequest().getMethod().name() + " "
                    + exchange.getRequest().getURI().getRawPath();
            return OpenAiErrors.write(
                    exchange,
                    HttpStatus.NOT_FOUND,
                    "invalid_request_error",
                    "unknown_url",
                    "Invalid URL (" + target + ")",
                    Map.of());
        }
        Tier tier = SluiceAttributes.tier(exchange);
        Operation op = matched.operation();
        if (tier.endpoints().opens(op.family(), op.kind().spendsUnmetered())) return chain.filter(exchange);
        // The body is drained first, as the surface's refusals are: an answer before it would reset the connection.
        return ApiSurfaceFilter.drained(exchange.getRequest().getBody())
                .then(Mono.defer(() -> OpenAiErrors.write(
                        exchange,
                        HttpStatus.FORBIDDEN,
                        "invalid_request_error",
                        "endpoint_not_allowed",
                        refusal(tier, op),
                        Map.of())));
    }

    /** The tenant's message: what is closed, why, and who can open it. */
    static String refusal(Tier tier, Operation op) {
        String family = op.family().wireName();
        String what = tier.endpoints().families().contains(op.family())
                ? op + " ("
                        + switch (op.kind()) {
                            case CREDENTIAL -> "it mints a provider credential";
                            default -> "it spends the provider account in a way this gateway does not meter";
                        }
                        + ") is not open to tier '" + tier.name() + "' by default"
                : "The '" + family + "' endpoints are not open to tier '" + tier.name() + "'";
        return what + ". The operator can open the '" + family
                + "' family for this tier in tiers.yaml (endpoints: [..., " + family + "]).";
    }

    @Override
    public int getOrder() {
        return FilterOrder.ENDPOINTS;
    }
}
