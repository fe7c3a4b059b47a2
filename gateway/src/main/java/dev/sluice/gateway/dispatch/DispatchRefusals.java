package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.upstream.CallFailures;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.RateLimitHeaders;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * What the dispatch stage answers when a request is not served, in OpenAI's shape: no provider
 * for the model, too large for every provider of the route, busy (with the place in line and the
 * wait), or the provider unreachable or late. Each is counted; a refusal that never reached a
 * provider gives the tenant's charge back.
 */
final class DispatchRefusals {
    private static final Logger log = LoggerFactory.getLogger(DispatchRefusals.class);

    private final StageCounter stages;
    private final UpstreamMeters meters;

    DispatchRefusals(StageCounter stages, UpstreamMeters meters) {
        this.stages = stages;
        this.meters = meters;
    }

    /** 404 model_not_found: no provider serves this model (a downgrade's target is checked when tiers.yaml is read). */
    static Mono<Void> modelNotFound(ServerWebExchange exchange, String model) {
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        return OpenAiErrors.modelNotFound(exchange, model);
    }

    /** The provider could not be reached or did not answer in time: 502 or 504 in OpenAI's shape. */
    Mono<Void> upstreamFailed(ServerWebExchange exchange, Throwable e) {
        if (exchange.getResponse().isCommitted()) return Mono.error(e); // mid-stream: nothing left to say
        if (CallFailures.cutByTheSurface(e)) return Mono.error(e); // the surface answers it: 413
        boolean timeout = CallFailures.isTimeout(e);
        String provider = SluiceAttributes.PROVIDER.get(exchange);
        meters.responses(timeout ? "timeout" : "unreachable", provider == null ? "none" : provider)
                .increment();
        // The tenant is told only that the provider failed; the operator needs what failed (no request data in it).
        log.warn(
                "Call to provider {} failed before its answer ({}): {} {}",
                provider == null ? "none" : provider,
                timeout ? "timeout" : "unreachable",
                e.getClass().getName(),
                e.getMessage());
        ServerWebExchangeUtils.reset(exchange);
        return timeout
                ? OpenAiErrors.write(
                        exchange,
                        HttpStatus.GATEWAY_TIMEOUT,
                        "server_error",
                        "upstream_timeout",
                        "The provider did not answer in time.")
                : OpenAiErrors.write(
                        exchange,
                        HttpStatus.BAD_GATEWAY,
                        "server_error",
                        "upstream_unavailable",
                        "The provider could not be reached.");
    }

    /**
     * 400 request_too_large: more tokens than the provider admits in a whole minute (in total, or
     * of input or of output where it limits them apart), on every provider of the route. No wait
     * would help, so not a retryable 503; the tenant's charge is given back (it was never sent).
     */
    Mono<Void> tooLarge(ServerWebExchange exchange, Tier tier, RequestEstimate estimate, RouteChoice.TooLarge over) {
        stages.count(SluiceAttributes.tenant(exchange).id(), tier.name(), Stage.TOO_LARGE);
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        String unit = over.unit();
        String message = String.format(
                "This request needs %d %s (prompt %d + up to %d output) but the provider admits at "
                        + "most %d %s per minute, so it can never be served. Lower max_tokens or shorten the input.",
                over.requested(), unit, estimate.promptTokens(), estimate.maxOutputTokens(), over.limit(), unit);
        return OpenAiErrors.tooManyTokens(
                exchange,
                message,
                Map.of(
                        "limit_" + unit.replace(' ', '_'),
                        over.limit(),
                        "requested_" + unit.replace(' ', '_'),
                        over.requested()));
    }

    /** 503 gateway_busy with the place in line and the wait; the tenant's charge is given back (it was never sent). */
    Mono<Void> busy(ServerWebExchange exchange, Tier tier, GatewayBusyException busy) {
        stages.count(SluiceAttributes.tenant(exchange).id(), tier.name(), Stage.BUSY);
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        long retryMs = Math.max(1, busy.retryAfterMs());
        HttpHeaders h = exchange.getResponse().getHeaders();
        h.set(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.ceilSeconds(retryMs)));
        h.set("retry-after-ms", Long.toString(retryMs));
        return OpenAiErrors.write(
                exchange,
                HttpStatus.SERVICE_UNAVAILABLE,
                "server_error",
                "gateway_busy",
                busy.getMessage(),
                Map.of("position", busy.position(), "estimated_wait_ms", busy.estimatedWaitMs()));
    }
}
