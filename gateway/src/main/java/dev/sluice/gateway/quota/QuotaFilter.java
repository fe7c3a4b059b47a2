package dev.sluice.gateway.quota;

import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiDuration;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.degrade.DegradationLadder;
import dev.sluice.gateway.degrade.LadderDecision;
import dev.sluice.gateway.degrade.Stage;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tier.SluiceConfig;
import dev.sluice.gateway.tier.Tier;
import dev.sluice.gateway.usage.Usage;
import dev.sluice.gateway.usage.UsageRecordingResponse;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The tenant's admission: charges the estimate before anything reaches the provider, lets the
 * {@link DegradationLadder} pass, downgrade, delay or refuse, and and settles it once afterwards
 * with what was really used: the usage the upstream reported; for a stream cut short, the
 * prompt and the output really sent; for a failure without usage, the prompt. The settle runs
 * in {@code doFinally}, which fires on completion, error and cancel alike, and a reservation
 * settles at most once, so nothing is charged twice and nothing leaks.
 */
public class QuotaFilter implements GlobalFilter, Ordered {
    /** Every value of {@code sluice.decisions}' stage tag (docs/metrics.md); {@code busy} is the dispatch door's. */
    static final java.util.List<String> DECISION_STAGES = java.util.List.of(Stage.PASSED.label(), Stage.DELAYED.label(),
            Stage.DOWNGRADED.label(), Stage.REJECTED.label(), "too-large", "store-unavailable", "busy");

    static final String DEGRADED = "X-Sluice-Degraded";

    private final QuotaLimiter limiter;
    private final DegradationLadder ladder;
    private final TokenEstimator estimator;
    private final RequestRewriter rewriter;
    private final MeterRegistry meters;
    private final TenantActivity activity;
    /** Requests held on a delay right now, on this replica: bounded by ladder.max-held. */
    private final AtomicInteger held = new AtomicInteger();
    private final PendingWork pending;

    public QuotaFilter(QuotaLimiter limiter, DegradationLadder ladder, TokenEstimator estimator, RequestRewriter rewriter,
                       MeterRegistry meters, TenantActivity activity, PendingWork pending) {
        this.pending = pending;
        this.activity = activity;
        this.limiter = limiter;
        this.ladder = ladder;
        this.estimator = estimator;
        this.rewriter = rewriter;
        this.meters = meters;
        meters.gauge("sluice.ladder.held", held);
        meters.counter("sluice.tokens.estimated"); // at zero from start, for the dashboard
        meters.counter("sluice.tokens.actual");
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Tenant tenant = SluiceAttributes.tenant(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        RequestEstimate estimate = exchange.getAttribute(SluiceAttributes.ESTIMATE);
        return limiter.acquire(tenant.id(), tier, estimate.totalTokens())
                .flatMap(outcome -> climb(exchange, chain, tenant, tier, estimate, outcome, true));
    }

    /** One rung of the ladder for this outcome; a delay comes back here once, with {@code mayDelay} false. */
    private Mono<Void> climb(ServerWebExchange exchange, GatewayFilterChain chain, Tenant tenant, Tier tier,
                             RequestEstimate estimate, QuotaLimiter.Outcome outcome, boolean mayDelay) {
        if (outcome.storeUnavailable()) {
            count(tenant, tier, "store-unavailable");
            exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, "1");
            return OpenAiErrors.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "server_error", "quota_store_unavailable",
                    "The gateway cannot check your quota right now; retry in a second.");
        }
        // Refusals carry the tenant's headers now; an admitted request gets them just before its
        // answer commits, so the provider's own x-ratelimit-* stay readable until then (dispatch reads them).
        if (!outcome.admitted()) RateLimitHeaders.apply(exchange.getResponse().getHeaders(), outcome.decision().windows());
        if (outcome.neverFits()) {
            count(tenant, tier, "too-large");
            return tooLarge(exchange, tier, estimate, outcome.decision());
        }
        SluiceConfig config = SluiceAttributes.config(exchange);
        boolean critical = exchange.<RequestOptions>getAttribute(SluiceAttributes.OPTIONS).noDowngrade();
        boolean roomToHold = held.get() < config.ladder().maxHeld();
        LadderDecision step = ladder.decide(outcome.decision(), tier, config.ladder(), estimate.model(), critical,
                mayDelay && roomToHold);
        // The abuse signal reads every answer, refusals and holds included, not a snapshot as the minute ends.
        activity.quotaAnswered(tenant.id(), estimate.totalTokens(), outcome.decision(), step.stage() == Stage.DELAYED);
        switch (step.stage()) {
            case REJECTED -> {
                count(tenant, tier, Stage.REJECTED.label());
                return rejected(exchange, tier, estimate, outcome.decision());
            }
            case DELAYED -> {
                count(tenant, tier, Stage.DELAYED.label());
                degraded(exchange, "delayed; ms=" + step.delayMs());
                held.incrementAndGet();
                // Held on a timer, not a thread; a client that leaves cancels the timer and frees the place.
                return Mono.delay(Duration.ofMillis(step.delayMs()))
                        .then(limiter.acquire(tenant.id(), tier, estimate.totalTokens()))
                        .doFinally(signal -> held.decrementAndGet())
                        .flatMap(retry -> climb(exchange, chain, tenant, tier, estimate, retry, false));
            }
            case DOWNGRADED -> {
                count(tenant, tier, Stage.DOWNGRADED.label());
                byte[] body = exchange.getAttribute(SluiceAttributes.REQUEST_BODY);
                exchange.getAttributes().put(SluiceAttributes.REQUEST_BODY, rewriter.withModel(body, step.model()));
                exchange.getAttributes().put(SluiceAttributes.MODEL, step.model());
                degraded(exchange, "model-downgraded; from=" + estimate.model() + "; to=" + step.model());
                return admitted(exchange, chain, estimate, outcome.reservation());
            }
            default -> {
                count(tenant, tier, Stage.PASSED.label());
                return admitted(exchange, chain, estimate, outcome.reservation());
            }
        }
    }

    /** X-Sluice-Degraded lists every stage that acted, in order (a request can be delayed, then downgraded). */
    private static void degraded(ServerWebExchange exchange, String what) {
        HttpHeaders h = exchange.getResponse().getHeaders();
        String before = h.getFirst(DEGRADED);
        h.set(DEGRADED, before == null ? what : before + ", " + what);
    }

    private Mono<Void> admitted(ServerWebExchange exchange, GatewayFilterChain chain, RequestEstimate estimate,
                                QuotaReservation reservation) {
        exchange.getAttributes().put(SluiceAttributes.RESERVATION, reservation);
        // Everything after the charge runs inside the settle's reach: a failure while setting the
        // call up (the report's 500 on every non-counted path) refunds instead of leaking the charge.
        AtomicReference<UsageRecordingResponse> recording = new AtomicReference<>();
        AtomicBoolean erredBeforeAnswer = new AtomicBoolean();
        return Mono.defer(() -> {
                    UsageRecordingResponse response = new UsageRecordingResponse(exchange.getResponse(),
                            estimate.gatewayMustRequestUsage(), estimator.encodingFor(estimate.model()));
                    recording.set(response);
                    exchange.getAttributes().put(SluiceAttributes.USAGE, response);
                    // The upstream's own x-ratelimit-* describe the provider account, not this tenant: ours win.
                    List<WindowUsage> windows = reservation.decision().windows();
                    response.beforeCommit(() -> {
                        RateLimitHeaders.apply(response.getHeaders(), windows);
                        return Mono.empty();
                    });
                    return chain.filter(exchange.mutate().response(response).build());
                })
                // Read as the error passes, not in doFinally: by then the error handler has answered it.
                .doOnError(e -> erredBeforeAnswer.set(recording.get() == null || !recording.get().isCommitted()))
                // Detached (a client that leaves must not cancel it) and counted, so shutdown waits for it.
                .doFinally(signal -> pending.run(settle(reservation, estimate, recording.get(), signal, erredBeforeAnswer.get())));
    }

    /** What this request really cost, as best known when it ended. */
    static long actualTokens(RequestEstimate estimate, UsageRecordingResponse response, SignalType signal, HttpStatus status) {
        Usage usage = response.usage().orElse(null);
        if (usage != null) return usage.totalTokens();
        boolean ok = status != null && status.is2xxSuccessful();
        if (ok && response.completed() && signal == SignalType.ON_COMPLETE) {
            return estimate.totalTokens(); // served, but no usage reported: keep the (pessimistic) estimate
        }
        // Cut short, failed, or refused upstream: the prompt (it may have been processed) and what was sent.
        return Math.min(estimate.totalTokens(), estimate.promptTokens() + response.observedOutputTokens());
    }

    /**
     * Whether the gateway itself failed before any answer started: an error escaped the chain
     * (it becomes our 500) with nothing written, or the call could not even be set up. That
     * costs the tenant nothing, not even the request. An upstream's own failure is not this:
     * the provider may have processed the prompt, so {@link #actualTokens} charges it.
     */
    static boolean failedOnOurSide(UsageRecordingResponse response, boolean erredBeforeAnswer) {
        return response == null || (erredBeforeAnswer && response.usage().isEmpty());
    }

    private Mono<Void> settle(QuotaReservation reservation, RequestEstimate estimate, UsageRecordingResponse response,
                              SignalType signal, boolean erredBeforeAnswer) {
        if (reservation.isSettled()) return Mono.empty();
        if (failedOnOurSide(response, erredBeforeAnswer)) return reservation.refundAll().onErrorResume(e -> Mono.empty());
        HttpStatus status = response.getStatusCode() == null ? null : HttpStatus.resolve(response.getStatusCode().value());
        long actual = actualTokens(estimate, response, signal, status);
        meters.counter("sluice.tokens.estimated").increment(estimate.totalTokens());
        meters.counter("sluice.tokens.actual").increment(actual);
        return reservation.settle(actual).onErrorResume(e -> Mono.empty());
    }

    private Mono<Void> rejected(ServerWebExchange exchange, Tier tier, RequestEstimate estimate, QuotaDecision d) {
        long ms = d.retryAfterMs();
        HttpHeaders h = exchange.getResponse().getHeaders();
        h.set(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.ceilSeconds(ms)));
        h.set("retry-after-ms", Long.toString(ms));
        WindowUsage blocking = d.windows().stream().filter(w -> w.name().equals(d.blocking())).findFirst().orElse(d.windows().get(0));
        String message = String.format("Rate limit reached for tier '%s' on the %s window: limit %d tokens and %d requests, "
                        + "used %d tokens and %d requests, this request needs %d tokens. Please try again in %s.",
                tier.name(), blocking.name(), blocking.limitTokens(), blocking.limitRequests(), blocking.usedTokens(),
                blocking.usedRequests(), estimate.totalTokens(), OpenAiDuration.format(ms));
        return OpenAiErrors.write(exchange, HttpStatus.TOO_MANY_REQUESTS, "tokens", "rate_limit_exceeded", message);
    }

    private Mono<Void> tooLarge(ServerWebExchange exchange, Tier tier, RequestEstimate estimate, QuotaDecision d) {
        WindowUsage w = d.windows().stream().filter(x -> x.name().equals(d.blocking())).findFirst().orElse(d.windows().get(0));
        String message = String.format("This request needs %d tokens (prompt %d + up to %d output) but tier '%s' admits at most "
                        + "%d tokens per %s window, so it can never be served. Lower max_tokens or shorten the input.",
                estimate.totalTokens(), estimate.promptTokens(), estimate.maxOutputTokens(), tier.name(), w.limitTokens(), w.name());
        return OpenAiErrors.write(exchange, HttpStatus.BAD_REQUEST, "invalid_request_error", "request_too_large", message,
                Map.of("limit_tokens", w.limitTokens(), "requested_tokens", estimate.totalTokens()));
    }

    private void count(Tenant tenant, Tier tier, String stage) {
        meters.counter("sluice.decisions", "tier", tier.name(), "stage", stage).increment();
        activity.stageTaken(tenant.id(), stage);
    }

    @Override
    public int getOrder() {
        return FilterOrder.QUOTA;
    }
}
