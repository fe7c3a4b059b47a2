package dev.sluice.gateway.estimate;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.support.Bodies;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Reads the body once (bounded), estimates what the request may cost, and asks the upstream for
 * usage on streams so the charge can be corrected afterwards. Bad JSON or fields: 400; a body
 * over the limit: 413; both before anything is charged.
 */
public class EstimateFilter implements GlobalFilter, Ordered {
    private final TokenEstimator estimator;
    private final RequestRewriter rewriter;
    private final int maxBodyBytes;

    public EstimateFilter(TokenEstimator estimator, RequestRewriter rewriter, int maxBodyBytes) {
        this.estimator = estimator;
        this.rewriter = rewriter;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Tier tier = SluiceAttributes.tier(exchange);
        String path = exchange.getRequest().getPath().value();
        try {
            SluiceAttributes.OPTIONS.set(
                    exchange, RequestOptions.from(exchange.getRequest().getHeaders()));
        } catch (RequestOptions.Invalid e) {
            return OpenAiErrors.invalidRequest(
                    exchange, HttpStatus.BAD_REQUEST, "invalid_header", e.getMessage(), e.header());
        }
        if (exchange.getRequest().getMethod() != HttpMethod.POST || Endpoint.fromPath(path) == Endpoint.OTHER) {
            // Operations that generate nothing (reads, such as the list of stored chat completions at
            // GET /v1/chat/completions, and object changes) cost a request and no tokens.
            RequestEstimate.ATTRIBUTE.set(exchange, RequestEstimate.other());
            return chain.filter(exchange);
        }
        return Bodies.read(exchange.getRequest().getBody(), maxBodyBytes)
                .flatMap(body -> estimated(exchange, chain, path, body, tier))
                .onErrorResume(
                        DataBufferLimitException.class,
                        e -> OpenAiErrors.write(
                                exchange,
                                HttpStatus.CONTENT_TOO_LARGE,
                                "invalid_request_error",
                                "request_too_large",
                                "The request body is larger than this gateway accepts (" + maxBodyBytes + " bytes)."));
    }

    private Mono<Void> estimated(
            ServerWebExchange exchange, GatewayFilterChain chain, String path, byte[] body, Tier tier) {
        RequestEstimate estimate;
        try {
            estimate = estimator.estimate(path, body, tier.defaultMaxTokens());
        } catch (InvalidRequestException e) {
            return OpenAiErrors.invalidRequest(exchange, HttpStatus.BAD_REQUEST, null, e.getMessage(), e.param());
        }
        // Ask for usage on every stream so it can be reconciled; the tap removes the extra chunk.
        byte[] forwarded = estimate.gatewayMustRequestUsage() ? rewriter.withIncludeUsage(body) : body;
        // The reservation counted the tier's default output: make it the provider's limit too.
        if (estimate.uncappedField() != null) {
            forwarded = rewriter.withOutputCap(forwarded, estimate.uncappedField(), tier.defaultMaxTokens());
        }
        RequestEstimate.ATTRIBUTE.set(exchange, estimate);
        SluiceAttributes.REQUEST_BODY.set(exchange, forwarded);
        if (estimate.model() != null) SluiceAttributes.MODEL.set(exchange, estimate.model());
        ServerWebExchange withBody = exchange.mutate()
                .request(new BufferedBodyRequest(
                        exchange.getRequest(), exchange, exchange.getResponse().bufferFactory()))
                .build();
        return chain.filter(withBody);
    }

    @Override
    public int getOrder() {
        return FilterOrder.ESTIMATE;
    }
}
