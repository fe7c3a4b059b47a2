package dev.sluice.gateway.usage;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.quota.RateLimitHeaders;
import dev.sluice.gateway.quota.SpendPrice;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The request path's settle stage: the charge the ladder admitted is settled once with what was
 * really used: the usage the upstream reported; for a stream cut short, the prompt and the
 * output really sent; for a failure without usage, the prompt; for an answer the gateway gave
 * without calling the provider ({@link SluiceAttributes#NEVER_SENT}), nothing. The settle runs in
 * {@code doFinally}, which fires on completion, error and cancel alike, and a reservation settles
 * at most once, so nothing is charged twice and nothing leaks. The spend is priced here too.
 */
public class SettleFilter implements GlobalFilter, Ordered {
    public static final String TOKENS_ESTIMATED = "sluice.tokens.estimated";
    public static final String TOKENS_ACTUAL = "sluice.tokens.actual";
    /** Tagged {@code tier}. */
    public static final String SPEND = "sluice.spend.usd";

    private final TokenEstimator estimator;
    private final MeterRegistry meters;
    private final PendingWork pending;
    private final EnforcementAccuracy accuracy;
    // Looked up once: at zero from start for the dashboard, and no registry lookup per request.
    private final Counter estimatedTokens;
    private final Counter actualTokens;
    /** Each tier's spend counter, looked up once (a registry lookup per answer showed in the profile). */
    private final Map<String, Counter> spendByTier = new ConcurrentHashMap<>();

    public SettleFilter(
            TokenEstimator estimator, MeterRegistry meters, PendingWork pending, EnforcementAccuracy accuracy) {
        this.accuracy = accuracy;
        this.estimator = estimator;
        this.meters = meters;
        this.pending = pending;
        this.estimatedTokens = meters.counter(TOKENS_ESTIMATED);
        this.actualTokens = meters.counter(TOKENS_ACTUAL);
    }

    /** Each tier's spend at zero from start, for the dashboard's spend panel on a new replica. */
    public void registerMeters(Collection<String> tiers) {
        for (String tier : tiers) meters.counter(SPEND, "tier", tier);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        QuotaReservation reservation = QuotaReservation.ATTRIBUTE.get(exchange);
        if (reservation == null) return chain.filter(exchange); // nothing was charged
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        String tenantId = SluiceAttributes.tenant(exchange).id();
        accuracy.opened(tenantId, reservation, reservation.estimatedTokens());
        // Everything after the charge runs inside the settle's reach: a failure while setting the
        // call up (the report's 500 on every non-counted path) refunds instead of leaking the charge.
        AtomicReference<UsageRecordingResponse> recording = new AtomicReference<>();
        AtomicBoolean erredBeforeAnswer = new AtomicBoolean();
        return Mono.defer(() -> {
                    UsageRecordingResponse response = new UsageRecordingResponse(
                            exchange.getResponse(),
                            estimate.gatewayMustRequestUsage(),
                            estimator.encodingFor(estimate.model()));
                    recording.set(response);
                    UsageRecordingResponse.ATTRIBUTE.set(exchange, response);
                    QuotaDecision decision = reservation.decision();
                    response.beforeCommit(() -> {
                        // The upstream's own x-ratelimit-* describe the provider account, not this tenant: ours win.
                        RateLimitHeaders.apply(response.getHeaders(), decision);
                        // Given back before the tenant reads the answer, so a retry finds its quota.
                        return SluiceAttributes.neverSent(exchange)
                                ? reservation.refundAll().onErrorResume(e -> Mono.empty())
                                : Mono.empty();
                    });
                    return chain.filter(exchange.mutate().response(response).build())
                            .doOnSuccess(done -> spend(exchange, response));
                })
                // Read as the error passes, not in doFinally: by then the error handler has answered it.
                .doOnError(e -> erredBeforeAnswer.set(
                        recording.get() == null || !recording.get().isCommitted()))
                // Detached (a client that leaves must not cancel it) and counted, so shutdown waits for it.
                .doFinally(signal -> pending.run(
                        SluiceAttributes.neverSent(exchange)
                                // Nothing reached a provider (refused, or the client left while it waited in line):
                                // nothing to pay.
                                ? refundAll(exchange, tenantId, reservation)
                                : settle(exchange, reservation, estimate, recording.get(), erredBeforeAnswer.get())));
    }

    /**
     * What this request really cost, as best known when it ended:
     * <ul>
     * <li>an operation that generates nothing (a read, a list, a delete): no tokens, whatever
     * usage its answer shows (a stored response's usage is that of the call that made it);</li>
     * <li>the usage the provider reported, and for a stream the output that passed to the client
     * after it (a usage chunk early in the stream, followed by more text);</li>
     * <li>an answer without usage, served whole or cut short (the client left, the provider
     * stalled): the reservation, or what passed if more; the reservation is a bound the provider
     * kept, since every request reaches it with an output cap;</li>
     * <li>a failure: the prompt, which the provider may have processed.</li>
     * </ul>
     * "What passed" is the prompt plus the output text the gateway forwarded, counted with the
     * tokenizer that estimated the prompt. Nothing here is capped by the reservation: the tenant
     * pays for what it received.
     */
    static long actualTokens(RequestEstimate estimate, UsageRecordingResponse response, HttpStatus status) {
        long[] used = actualUsage(estimate, response, status);
        return saturatedSum(used[0], used[1]);
    }

    /** {@link #actualTokens} as {input, output}, the two priced apart for the spend budgets. */
    static long[] actualUsage(RequestEstimate estimate, UsageRecordingResponse response, HttpStatus status) {
        if (estimate.endpoint() == Endpoint.OTHER) return new long[] {0, 0};
        boolean ok = status != null && status.is2xxSuccessful();
        Usage usage = response.usage().orElse(null);
        if (!ok)
            return usage != null
                    ? new long[] {usage.promptTokens(), usage.completionTokens()}
                    : new long[] {estimate.promptTokens(), 0};
        // A stream's usage may come before the end of its text: what followed it is added.
        if (usage != null)
            return new long[] {
                usage.promptTokens(), saturatedSum(usage.completionTokens(), response.outputTokensAfterUsage())
            };
        // Served or cut short, without a usage: the provider may have written up to the cap it was
        // given (a client that leaves does not stop every provider), and says nothing more.
        return new long[] {
            estimate.promptTokens(), Math.max(estimate.maxOutputTokens(), response.observedOutputTokens())
        };
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
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

    private Mono<Void> settle(
            ServerWebExchange exchange,
            QuotaReservation reservation,
            RequestEstimate estimate,
            UsageRecordingResponse response,
            boolean erredBeforeAnswer) {
        String tenantId = SluiceAttributes.tenant(exchange).id();
        if (reservation.isSettled()) {
            accuracy.forget(tenantId, reservation);
            return Mono.empty();
        }
        if (failedOnOurSide(response, erredBeforeAnswer)) return refundAll(exchange, tenantId, reservation);
        HttpStatus status = response.getStatusCode() == null
                ? null
                : HttpStatus.resolve(response.getStatusCode().value());
        long[] used = actualUsage(estimate, response, status);
        long actual = saturatedSum(used[0], used[1]);
        estimatedTokens.increment(estimate.totalTokens());
        actualTokens.increment(actual);
        // The spend budgets are settled at the price of the provider that served (the reservation took the dearest).
        long cost = reservation.chargesSpend()
                ? SpendPrice.settled(
                        SluiceAttributes.config(exchange),
                        SluiceAttributes.PROVIDER.get(exchange),
                        SluiceAttributes.MODEL.get(exchange),
                        used[0],
                        used[1])
                : 0;
        String provider = SluiceAttributes.PROVIDER.get(exchange);
        accuracy.settled(
                tenantId,
                SluiceAttributes.tier(exchange).name(),
                provider,
                reservation,
                reservation.estimatedTokens(),
                actual);
        SettleListener listener = SettleListener.ATTRIBUTE.get(exchange);
        if (listener != null) listener.settled(actual, cost);
        return reservation.settle(actual, cost).onErrorResume(e -> Mono.empty());
    }

    private Mono<Void> refundAll(ServerWebExchange exchange, String tenantId, QuotaReservation reservation) {
        accuracy.refunded(tenantId, reservation);
        SettleListener listener = SettleListener.ATTRIBUTE.get(exchange);
        if (listener != null) listener.refunded();
        return reservation.refundAll().onErrorResume(e -> Mono.empty());
    }

    /** The answer's usage at the price of the model at the provider that served it. */
    private void spend(ServerWebExchange exchange, UsageRecordingResponse response) {
        Usage used = response.usage().orElse(null);
        if (used == null) return;
        String served = SluiceAttributes.PROVIDER.get(exchange);
        ModelLimits limits = served == null
                ? null
                : SluiceAttributes.config(exchange)
                        .provider(served)
                        .map(p -> p.limitsFor(SluiceAttributes.MODEL.get(exchange)))
                        .orElse(null);
        if (limits == null) return;
        spendByTier
                .computeIfAbsent(SluiceAttributes.tier(exchange).name(), tier -> meters.counter(SPEND, "tier", tier))
                .increment(limits.costMicros(used.promptTokens(), used.completionTokens())
                        / (double) Money.MICROS_PER_USD);
    }

    @Override
    public int getOrder() {
        return FilterOrder.SETTLE;
    }
}
