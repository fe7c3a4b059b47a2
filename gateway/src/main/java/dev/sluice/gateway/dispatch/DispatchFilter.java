package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestLoop;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.quota.RateLimitHeaders;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.usage.Usage;
import dev.sluice.gateway.usage.UsageRecordingResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Protects the provider: a request admitted by its tenant's quota waits its turn in the fair
 * queue of its provider budget, goes when the shared budget has room, and gives its slot back
 * when the call ends. A provider 429 pauses the budget for every replica and sends the request
 * back to the head of its lane (a bounded number of times); a 503 lowers the adaptive
 * concurrency limit and does the same. Neither reaches the tenant raw.
 */
public class DispatchFilter implements GlobalFilter, Ordered {
    private final Dispatchers dispatchers;
    private final Clock clock;
    private final MeterRegistry meters;
    private final StageCounter stages;
    private final UpstreamTimeouts timeouts;
    private final Map<String, Counter> responses = new ConcurrentHashMap<>();
    private final Counter retried429;
    private final Counter retried503;
    /** A 503 without retry-after is tried again after this, not at once. */
    static final long DEFAULT_OVERLOAD_WAIT_MS = 500;

    public DispatchFilter(Dispatchers dispatchers, Clock clock, MeterRegistry meters, StageCounter stages,
                          UpstreamTimeouts timeouts) {
        this.stages = stages;
        this.dispatchers = dispatchers;
        this.clock = clock;
        this.meters = meters;
        this.timeouts = timeouts;
        // The statuses the alerts watch, at zero from start (docs/metrics.md lists the rest as they come).
        for (String status : List.of("200", "429", "503", "timeout", "unreachable")) responses(status);
        // Registered at zero, so a dashboard's rate() sees the first retry. Only a 429 or a 503 is tried again.
        this.retried429 = retries("429");
        this.retried503 = retries("503");
    }

    /** Looked up once per status, not in the registry on every answer. */
    private Counter responses(String status) {
        return responses.computeIfAbsent(status, s -> meters.counter("sluice.upstream.responses", "status", s));
    }

    private Counter retries(String status) {
        return Counter.builder("sluice.upstream.retries").tag("status", status)
                .description("Calls tried again after the provider pushed back").register(meters);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        String model = SluiceAttributes.MODEL.get(exchange);
        ProviderDispatcher dispatcher = dispatchers.forModel(model);
        if (dispatcher == null) { // the provider publishes no limits to protect
            return chain.filter(exchange.mutate().response(new UpstreamAnswer(exchange, timeouts, false, clock)).build())
                    .onErrorResume(e -> upstreamFailed(exchange, e));
        }

        Tenant tenant = SluiceAttributes.tenant(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        BudgetLimits limits = dispatcher.limits();
        if (estimate.totalTokens() > SlidingWindow.cap(limits.tokensPerMinute())) {
            return tooLargeForProvider(exchange, tier, estimate, "tokens", estimate.totalTokens(), limits.tokensPerMinute());
        }
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        if (limitIn && estimate.promptTokens() > SlidingWindow.cap(limits.inputTokensPerMinute())) {
            return tooLargeForProvider(exchange, tier, estimate, "input tokens", estimate.promptTokens(), limits.inputTokensPerMinute());
        }
        if (limitOut && estimate.maxOutputTokens() > SlidingWindow.cap(limits.outputTokensPerMinute())) {
            return tooLargeForProvider(exchange, tier, estimate, "output tokens", estimate.maxOutputTokens(),
                    limits.outputTokensPerMinute());
        }
        RequestOptions options = SluiceAttributes.OPTIONS.get(exchange);
        long now = clock.millis();
        // The provider budget is charged what the provider will count: the prompt at the learned
        // ratio. Never past the minute's cap: what the estimate says fits must stay servable.
        double ratio = dispatchers.calibration().ratio(dispatcher.key());
        long charge = Math.min(SlidingWindow.cap(limits.tokensPerMinute()), TokenCalibration.charge(
                estimate.promptTokens(), estimate.maxOutputTokens(), ratio));
        Job job = Job.of(exchange.getRequest().getId(), tenant.id(), tier.priority(),
                options.batch() ? JobClass.BATCH : JobClass.INTERACTIVE, charge, now, now + options.maxWaitMs());
        if (limitIn || limitOut) {
            // Where input and output are limited apart: the calibrated prompt, and max_tokens reserved
            // as the provider reserves it (settled to what was written when the answer says).
            job = job.withSplit(
                    limitIn ? Math.min(SlidingWindow.cap(limits.inputTokensPerMinute()),
                            TokenCalibration.charge(estimate.promptTokens(), 0, ratio)) : 0,
                    limitOut ? Math.max(0, estimate.maxOutputTokens()) : 0);
        }
        AtomicLong waited = new AtomicLong();
        // The lease comes on the dispatch loop, which every request shares: the call goes on from this request's own loop.
        return dispatcher.submit(job, options.maxWaitMs())
                .publishOn(RequestLoop.of(exchange))
                .flatMap(lease -> call(exchange, chain, dispatcher, lease, waited, 1))
                .onErrorResume(GatewayBusyException.class, busy -> busy(exchange, tier, busy))
                .onErrorResume(e -> upstreamFailed(exchange, e));
    }

    /** The provider could not be reached or did not answer in time: 502 or 504 in OpenAI's shape. */
    private Mono<Void> upstreamFailed(ServerWebExchange exchange, Throwable e) {
        if (exchange.getResponse().isCommitted()) return Mono.error(e); // mid-stream: nothing left to say
        boolean timeout = e instanceof java.util.concurrent.TimeoutException
                || e instanceof org.springframework.web.server.ResponseStatusException r && r.getStatusCode().value() == 504;
        responses(timeout ? "timeout" : "unreachable").increment();
        ServerWebExchangeUtils.reset(exchange);
        return timeout
                ? OpenAiErrors.write(exchange, HttpStatus.GATEWAY_TIMEOUT, "server_error", "upstream_timeout",
                        "The provider did not answer in time.")
                : OpenAiErrors.write(exchange, HttpStatus.BAD_GATEWAY, "server_error", "upstream_unavailable",
                        "The provider could not be reached.");
    }

    /** One attempt at the provider with {@code lease}; a push-back goes back in line and comes here again. */
    private Mono<Void> call(ServerWebExchange exchange, GatewayFilterChain chain, ProviderDispatcher dispatcher, Lease lease,
                            AtomicLong waited, int attempt) {
        long queued = waited.addAndGet(lease.queuedMs());
        if (queued > 0) exchange.getResponse().getHeaders().set("X-Sluice-Queue-Wait-Ms", Long.toString(queued));
        UpstreamAnswer answer = new UpstreamAnswer(exchange, timeouts, true, clock);
        AtomicBoolean ended = new AtomicBoolean();
        long started = clock.millis();
        return chain.filter(exchange.mutate().response(answer).build())
                .then(Mono.defer(() -> {
                    ended.set(true);
                    correctFromProvider(dispatcher, answer);
                    responses(Integer.toString(answer.status())).increment();
                    if (!answer.pushedBack()) return finished(exchange, dispatcher, lease, answer, started);
                    return pushedBack(exchange, chain, dispatcher, lease, answer, waited, attempt);
                }))
                .doFinally(signal -> {
                    // Cancelled (client gone) or failed (timeout, connection refused): give the slot back.
                    if (ended.compareAndSet(false, true)) {
                        AimdLimit.Outcome outcome = signal == reactor.core.publisher.SignalType.ON_ERROR
                                ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.SUCCESS;
                        // Without the answer's usage the charge stays (the safe side); a stream cut after
                        // its usage arrived settles the input and output windows from it.
                        Usage used = usageOf(exchange);
                        dispatcher.finish(lease, outcome, 0, inputDelta(dispatcher, lease, used), outputDelta(dispatcher, lease, used),
                                clock.millis() - started, answer.countedByMs()).subscribe();
                    }
                });
    }

    private Mono<Void> finished(ServerWebExchange exchange, ProviderDispatcher dispatcher, Lease lease, UpstreamAnswer answer,
                                long started) {
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        Usage used = usageOf(exchange);
        // Providers count prompt + max_tokens at admission and keep it for the minute: only the
        // prompt's difference is corrected, or the budget would think it had room the provider does not.
        // The lease charged the calibrated prompt (what is left after the reserved output).
        long chargedPrompt = Math.max(0, lease.job().tokens() - estimate.maxOutputTokens());
        long delta = used == null ? 0 : used.promptTokens() - chargedPrompt;
        if (used != null && answer.status() / 100 == 2) {
            dispatchers.calibration().observe(lease.budgetKey(), estimate.promptTokens(), used.promptTokens());
        }
        AimdLimit.Outcome outcome = answer.status() == 504 || answer.timedOut()
                ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.SUCCESS;
        // The answer has been written: the slot goes back in the background (finish runs detached,
        // so nothing can cancel it), and the exchange ends now. Waiting for that round trip would
        // hold the client's connection, and its next request on it, for nothing.
        dispatcher.finish(lease, outcome, delta, inputDelta(dispatcher, lease, used), outputDelta(dispatcher, lease, used),
                clock.millis() - started, answer.countedByMs()).subscribe();
        return Mono.empty();
    }

    private static Usage usageOf(ServerWebExchange exchange) {
        UsageRecordingResponse usage = UsageRecordingResponse.ATTRIBUTE.get(exchange);
        return usage == null ? null : usage.usage().orElse(null);
    }

    /** The input window's correction: the prompt the provider counted against the one charged (0 without a window). */
    private static long inputDelta(ProviderDispatcher dispatcher, Lease lease, Usage used) {
        if (used == null || dispatcher.limits().inputTokensPerMinute() == 0) return 0;
        return used.promptTokens() - lease.job().inputTokens();
    }

    /**
     * The output window's correction: what was written against the max_tokens reserved. Unlike the
     * total (which the provider keeps at prompt + max_tokens for the minute), an output limit is
     * settled to what was written, as Anthropic settles OTPM; 0 without a window.
     */
    private static long outputDelta(ProviderDispatcher dispatcher, Lease lease, Usage used) {
        if (used == null || dispatcher.limits().outputTokensPerMinute() == 0) return 0;
        return used.completionTokens() - lease.job().outputTokens();
    }

    private Mono<Void> pushedBack(ServerWebExchange exchange, GatewayFilterChain chain, ProviderDispatcher dispatcher,
                                  Lease lease, UpstreamAnswer answer, AtomicLong waited, int attempt) {
        long pause = answer.retryAfterMs() > 0 ? answer.retryAfterMs() : 1_000;
        boolean tooMany = answer.status() == 429;
        Mono<Void> settle = tooMany
                ? dispatcher.pushedBack(lease, pause)
                : dispatcher.overloaded(lease);
        // A 429 pauses the whole budget (the queue waits it out); a 503 concerns this call: it
        // waits here, out of line and holding no slot, for what the provider asked.
        long wait = tooMany ? 0 : answer.retryAfterMs() >= 0 ? answer.retryAfterMs() : DEFAULT_OVERLOAD_WAIT_MS;
        long left = lease.job().deadlineMs() - clock.millis();
        if (attempt >= dispatchers.settings().maxAttempts() || wait > left) {
            long retry = tooMany ? pause : Math.max(wait, DEFAULT_OVERLOAD_WAIT_MS);
            GatewayBusyException why = wait > left ? GatewayBusyException.overloadedPastMaxWait(wait, retry)
                    : GatewayBusyException.pushedBackEveryTime(attempt, retry);
            return settle.then(Mono.defer(() -> {
                resetForRetry(exchange);
                return busy(exchange, SluiceAttributes.tier(exchange), why);
            }));
        }
        (tooMany ? retried429 : retried503).increment();
        return settle.then(wait > 0 ? Mono.delay(java.time.Duration.ofMillis(wait)).then() : Mono.<Void>empty())
                .then(Mono.defer(() -> {
            resetForRetry(exchange);
            return dispatcher.resubmit(lease.job().nextAttempt())
                    .publishOn(RequestLoop.of(exchange))
                    .flatMap(next -> call(exchange, chain, dispatcher, next, waited, attempt + 1));
        }));
    }

    /** Undo what the routing filters put on the exchange and the response, so the call can be made again. */
    private static void resetForRetry(ServerWebExchange exchange) {
        ServerWebExchangeUtils.reset(exchange);
        exchange.getResponse().setStatusCode(null);
    }

    private void correctFromProvider(ProviderDispatcher dispatcher, UpstreamAnswer answer) {
        if (answer.remainingRequests() < 0 && answer.remainingTokens() < 0) return;
        dispatcher.correct(answer.remainingRequests(), answer.remainingTokens(), Math.max(answer.resetMs(), 0)).subscribe();
    }

    /**
     * 400 request_too_large: more tokens than the provider admits in a whole minute (in total, or
     * of input or of output where it limits them apart). No wait would help, so not a retryable
     * 503; the tenant's charge is given back (it was never sent).
     */
    private Mono<Void> tooLargeForProvider(ServerWebExchange exchange, Tier tier, RequestEstimate estimate, String unit,
                                           long requested, long limit) {
        stages.count(SluiceAttributes.tenant(exchange).id(), tier.name(), Stage.TOO_LARGE);
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        String message = String.format("This request needs %d %s (prompt %d + up to %d output) but the provider admits at "
                        + "most %d %s per minute, so it can never be served. Lower max_tokens or shorten the input.",
                requested, unit, estimate.promptTokens(), estimate.maxOutputTokens(), limit, unit);
        return OpenAiErrors.write(exchange, HttpStatus.BAD_REQUEST, "invalid_request_error", "request_too_large",
                message, Map.of("limit_" + unit.replace(' ', '_'), limit, "requested_" + unit.replace(' ', '_'), requested));
    }

    /** 503 gateway_busy with the place in line and the wait; the tenant's charge is given back (it was never sent). */
    private Mono<Void> busy(ServerWebExchange exchange, Tier tier, GatewayBusyException busy) {
        stages.count(SluiceAttributes.tenant(exchange).id(), tier.name(), Stage.BUSY);
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        long retryMs = Math.max(1, busy.retryAfterMs());
        HttpHeaders h = exchange.getResponse().getHeaders();
        h.set(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.ceilSeconds(retryMs)));
        h.set("retry-after-ms", Long.toString(retryMs));
        return OpenAiErrors.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "server_error", "gateway_busy",
                busy.getMessage(), Map.of("position", busy.position(), "estimated_wait_ms", busy.estimatedWaitMs()));
    }

    @Override
    public int getOrder() {
        return FilterOrder.DISPATCH;
    }
}
