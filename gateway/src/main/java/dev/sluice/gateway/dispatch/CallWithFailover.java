package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.RequestLoop;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.health.ProviderFailingException;
import dev.sluice.gateway.dispatch.lease.FinishedCall;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.upstream.CallFailures;
import dev.sluice.gateway.dispatch.upstream.FirstByteTimeout;
import dev.sluice.gateway.dispatch.upstream.ProviderConnection;
import dev.sluice.gateway.dispatch.upstream.SentRequest;
import dev.sluice.gateway.dispatch.upstream.UpstreamAnswer;
import dev.sluice.gateway.dispatch.upstream.UpstreamMeters;
import dev.sluice.gateway.dispatch.upstream.UpstreamTargets;
import dev.sluice.gateway.dispatch.upstream.UpstreamTimeouts;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.usage.Usage;
import dev.sluice.gateway.usage.UsageRecordingResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * A routed request's calls to its providers: into a budget's line, the call when the lease comes,
 * and what its answer means. A 429 pauses the budget for every replica and sends the request back
 * in line (a bounded number of times); a 503 lowers the adaptive concurrency limit and does the
 * same. Neither reaches the tenant raw. A call that fails before its answer begins (refused,
 * reset, a 5xx, no answer in time) counts against the provider's circuit and goes to the route's
 * next provider. Each ending settles its lease once, from the answer's usage where there is one.
 */
final class CallWithFailover {
    private static final Logger log = LoggerFactory.getLogger(CallWithFailover.class);
    /** How many times a waiting request may be sent to another line because its provider started failing. */
    private static final int MAX_SPILLS = 4;
    /** A 503 without retry-after is tried again after this, not at once. */
    static final long DEFAULT_OVERLOAD_WAIT_MS = 500;

    private final Dispatchers dispatchers;
    private final Clock clock;
    private final UpstreamMeters meters;
    private final DispatchRefusals refusals;
    private final UpstreamTimeouts timeouts;
    private final RequestRewriter rewriter;
    private final UpstreamTargets targets;

    CallWithFailover(
            Dispatchers dispatchers,
            Clock clock,
            UpstreamMeters meters,
            DispatchRefusals refusals,
            UpstreamTimeouts timeouts,
            RequestRewriter rewriter,
            UpstreamTargets targets) {
        this.dispatchers = dispatchers;
        this.clock = clock;
        this.meters = meters;
        this.refusals = refusals;
        this.timeouts = timeouts;
        this.rewriter = rewriter;
        this.targets = targets;
    }

    /**
     * Into the line of a budget of the route (the first that can start it within the spill
     * wait, else the soonest), then the call. A request whose line's provider starts failing
     * while it waits was never sent: it is routed again.
     */
    Mono<Void> dispatch(RoutedRequest r, int attempt, long maxWaitMs) {
        return dispatchers
                .submit(r.untried(), maxWaitMs, SluiceAttributes.decisionBudget(r.exchange))
                .doOnNext(lease -> r.handedOverAtMs = clock.millis())
                // The lease comes on the dispatch loop, which every request shares: the call goes on from this
                // request's own loop.
                .publishOn(RequestLoop.of(r.exchange))
                .flatMap(lease -> call(r, lease, attempt))
                .onErrorResume(
                        ProviderFailingException.class,
                        failing -> r.spilled++ < MAX_SPILLS
                                ? dispatch(r, attempt, r.waitLeftMs(clock.millis()))
                                : Mono.error(GatewayBusyException.providersFailing(r.waitLeftMs(clock.millis()))));
    }

    /** A call no budget guards (it names no model and the provider lists no "*"): straight to the provider. */
    Mono<Void> unbudgeted(RoutedRequest r, ProviderSettings provider) {
        ServerWebExchange exchange = r.exchange;
        toProvider(r, provider);
        UpstreamAnswer answer = new UpstreamAnswer(exchange, timeouts, false, false, status -> {}, clock);
        return ProviderConnection.cancelledOnItsLoop(
                        r.chain.filter(exchange.mutate().response(answer).build()))
                .doOnSuccess(done -> meters.responses(Integer.toString(answer.status()), provider.name())
                        .increment())
                .onErrorResume(e -> refusals.upstreamFailed(exchange, e));
    }

    /** This attempt goes to {@code provider}: its URL and key, the model under its own name, and the answer says who served it. */
    private void toProvider(RoutedRequest r, ProviderSettings provider) {
        SluiceAttributes.NEVER_SENT.set(r.exchange, false);
        SluiceAttributes.PROVIDER.set(r.exchange, provider.name());
        UpstreamTargets.ATTRIBUTE.set(r.exchange, targets.of(provider));
        if (r.body != null) {
            String upstreamModel = provider.upstreamModel(r.model);
            SluiceAttributes.REQUEST_BODY.set(
                    r.exchange,
                    upstreamModel == null || upstreamModel.equals(r.model)
                            ? r.body
                            : rewriter.withModel(r.body, upstreamModel));
        }
        r.exchange.getResponse().getHeaders().set(DispatchFilter.PROVIDER_HEADER, provider.name());
    }

    /** One attempt at the provider with {@code lease}; a push-back goes back in line, a failure to the next provider. */
    private Mono<Void> call(RoutedRequest r, Lease lease, int attempt) {
        ServerWebExchange exchange = r.exchange;
        ProviderDispatcher dispatcher = r.dispatcherOf(lease);
        ProviderSettings provider = r.providerOf(dispatcher);
        String name = provider.name();
        toProvider(r, provider);
        long queued = r.waited.addAndGet(lease.queuedMs());
        if (queued > 0) exchange.getResponse().getHeaders().set("X-Sluice-Queue-Wait-Ms", Long.toString(queued));
        boolean mayFailOver = attempt < dispatchers.settings().maxAttempts() && r.hasAnotherThan(name);
        UpstreamAnswer answer =
                new UpstreamAnswer(exchange, timeouts, true, mayFailOver, status -> seen(name, status), clock);
        AtomicBoolean ended = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        SentRequest sent = new SentRequest(exchange.getRequest(), clock, () -> dispatcher.sent(lease));
        long handedOverAtMs = r.handedOverAtMs;
        // Settled as sent: the count delay runs from when the body left, which under a burst is well after the lease.
        Supplier<Lease> asSent = () -> lease.sentAfter(SentRequest.countsLaterByMs(
                handedOverAtMs,
                sent.sentAtMs(),
                answer.headersAtMs(),
                answer.countedByMs() != Long.MIN_VALUE,
                dispatcher.limits().countDelayMs()));
        Duration firstByte = FirstByteTimeout.of(dispatchers.settings().failover(), lease.probe(), mayFailOver);
        return FirstByteTimeout.within(
                        ProviderConnection.cancelledOnItsLoop(r.chain.filter(
                                exchange.mutate().request(sent).response(answer).build())),
                        answer,
                        firstByte)
                .doOnError(error::set)
                .doFinally(signal -> {
                    // Cancelled (client gone) or failed (timeout, reset, connection refused): give the slot back;
                    // a connection never made is refunded whole, it cost the provider nothing.
                    if (ended.compareAndSet(false, true)) {
                        if (signal == SignalType.ON_ERROR && CallFailures.neverConnected(error.get())) {
                            dispatcher.notSent(lease).subscribe();
                            return;
                        }
                        FinishedCall cut = FinishedCall.cut(
                                signal == SignalType.ON_ERROR,
                                error.get(),
                                lease,
                                dispatcher.limits(),
                                usageOf(exchange));
                        settle(dispatcher, asSent.get(), cut, answer);
                    }
                })
                // The call's own failure, as a signal: what follows (a retry, another provider) has failures of its
                // own.
                .materialize()
                .flatMap(signal -> {
                    if (signal.isOnError()) return failedCall(r, name, attempt, signal.getThrowable());
                    ended.set(true);
                    correctFromProvider(dispatcher, answer);
                    meters.responses(Integer.toString(answer.status()), name).increment();
                    if (answer.failedOver()) {
                        settle(dispatcher, asSent.get(), FinishedCall.FAILED_OVER, answer);
                        return failedOver(r, name, attempt);
                    }
                    if (!answer.pushedBack()) return finished(exchange, dispatcher, asSent.get(), answer);
                    return pushedBack(r, dispatcher, lease, answer, attempt);
                });
    }

    /** The provider's status as its headers arrive: alive (any answer but a 5xx other than 503) or failing. */
    private void seen(String provider, int status) {
        if (status >= 500 && status != 503) dispatchers.failed(provider);
        else dispatchers.answered(provider);
    }

    /**
     * The call failed before an answer (refused, reset, no answer in time): the provider is
     * failing. Nothing reached the client yet, so another provider of the route gets the call;
     * without one, the client gets 502 or 504.
     */
    private Mono<Void> failedCall(RoutedRequest r, String provider, int attempt, Throwable e) {
        if (e instanceof GatewayBusyException || CallFailures.cutByTheSurface(e)) return Mono.error(e);
        // No connection, no prompt processed: free, unless an earlier attempt reached a provider.
        // Marked here, before the answer is written: the call's doFinally runs after it.
        if (!CallFailures.neverConnected(e)) r.reachedAProvider = true;
        else if (!r.reachedAProvider) SluiceAttributes.NEVER_SENT.set(r.exchange, true);
        dispatchers.failed(provider);
        boolean open = !r.exchange.getResponse().isCommitted()
                && attempt < dispatchers.settings().maxAttempts()
                && r.hasAnotherThan(provider);
        if (!open) return Mono.error(e);
        log.warn("The call to provider {} failed ({}); trying the next on the route", provider, e.toString());
        return failedOver(r, provider, attempt);
    }

    /** To the route's other providers, with what is left of the caller's wait. */
    private Mono<Void> failedOver(RoutedRequest r, String provider, int attempt) {
        r.tried.add(provider);
        meters.retries("failover", provider).increment();
        resetForRetry(r.exchange);
        return dispatch(r, attempt + 1, r.waitLeftMs(clock.millis()));
    }

    private Mono<Void> finished(
            ServerWebExchange exchange, ProviderDispatcher dispatcher, Lease lease, UpstreamAnswer answer) {
        RequestEstimate estimate = RouteChoice.providerCost(RequestEstimate.ATTRIBUTE.get(exchange));
        // A read's answer may show the usage of the call that made the object: not this call's.
        Usage used = estimate.endpoint() == Endpoint.OTHER || estimate.endpoint() == Endpoint.BATCHES
                ? null
                : usageOf(exchange);
        if (used != null && answer.status() / 100 == 2) {
            dispatchers.calibration().observe(lease.budgetKey(), estimate.promptTokens(), used.promptTokens());
        }
        FinishedCall call =
                FinishedCall.answered(answer.status(), answer.timedOut(), lease, dispatcher.limits(), estimate, used);
        // The answer has been written: the slot goes back in the background (finish runs detached,
        // so nothing can cancel it), and the exchange ends now. Waiting for that round trip would
        // hold the client's connection, and its next request on it, for nothing.
        settle(dispatcher, lease, call, answer);
        return Mono.empty();
    }

    /** Ends {@code lease} as {@code call} says, without waiting for the store. */
    private void settle(ProviderDispatcher dispatcher, Lease lease, FinishedCall call, UpstreamAnswer answer) {
        dispatcher.finish(lease, call, answer.countedByMs()).subscribe();
    }

    private static Usage usageOf(ServerWebExchange exchange) {
        UsageRecordingResponse usage = UsageRecordingResponse.ATTRIBUTE.get(exchange);
        return usage == null ? null : usage.usage().orElse(null);
    }

    private Mono<Void> pushedBack(
            RoutedRequest r, ProviderDispatcher dispatcher, Lease lease, UpstreamAnswer answer, int attempt) {
        ServerWebExchange exchange = r.exchange;
        String provider = dispatcher.provider();
        long pause = answer.retryAfterMs() > 0 ? answer.retryAfterMs() : 1_000;
        boolean tooMany = answer.status() == 429;
        Mono<Void> settle = tooMany ? dispatcher.pushedBack(lease, pause) : dispatcher.overloaded(lease);
        // A 429 pauses the whole budget (the queue waits it out); a 503 concerns this call: it
        // waits here, out of line and holding no slot, for what the provider asked.
        long wait = tooMany ? 0 : answer.retryAfterMs() >= 0 ? answer.retryAfterMs() : DEFAULT_OVERLOAD_WAIT_MS;
        long left = lease.job().deadlineMs() - clock.millis();
        if (attempt >= dispatchers.settings().maxAttempts() || wait > left && !r.hasAnotherThan(provider)) {
            long retry = tooMany ? pause : Math.max(wait, DEFAULT_OVERLOAD_WAIT_MS);
            GatewayBusyException why = wait > left
                    ? GatewayBusyException.overloadedPastMaxWait(wait, retry)
                    : GatewayBusyException.pushedBackEveryTime(attempt, retry);
            return settle.then(Mono.defer(() -> {
                resetForRetry(exchange);
                return refusals.busy(exchange, SluiceAttributes.tier(exchange), why);
            }));
        }
        meters.retries(tooMany ? "429" : "503", provider).increment();
        if (r.candidates.size() > 1) {
            // Several providers: the route chooses again. The 429's pause is in this budget now, so
            // another provider that can start the call sooner takes it; a 503's wait is taken there instead.
            return settle.then(Mono.defer(() -> {
                resetForRetry(exchange);
                return dispatch(r, attempt + 1, r.waitLeftMs(clock.millis()));
            }));
        }
        return settle.then(wait > 0 ? Mono.delay(Duration.ofMillis(wait)).then() : Mono.<Void>empty())
                .then(Mono.defer(() -> {
                    resetForRetry(exchange);
                    return dispatcher
                            .resubmit(lease.job().nextAttempt())
                            .doOnNext(next -> r.handedOverAtMs = clock.millis())
                            .publishOn(RequestLoop.of(exchange))
                            .flatMap(next -> call(r, next, attempt + 1));
                }));
    }

    /** Undo what the routing filters put on the exchange and the response, so the call can be made again. */
    private static void resetForRetry(ServerWebExchange exchange) {
        ServerWebExchangeUtils.reset(exchange);
        exchange.getResponse().setStatusCode(null);
    }

    private void correctFromProvider(ProviderDispatcher dispatcher, UpstreamAnswer answer) {
        if (answer.remainingRequests() < 0 && answer.remainingTokens() < 0) return;
        dispatcher
                .correct(answer.remainingRequests(), answer.remainingTokens(), Math.max(answer.resetMs(), 0))
                .subscribe();
    }
}
