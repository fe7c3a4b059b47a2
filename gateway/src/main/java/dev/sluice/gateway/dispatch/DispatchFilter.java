package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestBodyTooLarge;
import dev.sluice.gateway.api.RequestLoop;
import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.dispatch.upstream.SentRequest;
import dev.sluice.gateway.dispatch.upstream.UpstreamAnswer;
import dev.sluice.gateway.dispatch.upstream.UpstreamTargets;
import dev.sluice.gateway.dispatch.upstream.UpstreamTimeouts;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.support.Causes;
import dev.sluice.gateway.quota.RateLimitHeaders;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.usage.Usage;
import dev.sluice.gateway.usage.UsageRecordingResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.estimate.RequestRewriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Protects the providers: a request admitted by its tenant's quota goes to a provider of its
 * model's route (the first that can start it within the spill wait, else the soonest), waits
 * its turn in the fair queue of that provider's budget, goes when the shared budget has room,
 * and gives its slot back when the call ends. A provider 429 pauses the budget for every
 * replica and sends the request back in line (a bounded number of times); a 503 lowers the
 * adaptive concurrency limit and does the same. Neither reaches the tenant raw. A call that
 * fails before its answer begins (refused, reset, a 5xx, no answer in time) counts against the
 * provider's circuit ({@link ProviderHealth}) and goes to the route's next provider. The tenant
 * is charged once, whichever provider serves; {@value #PROVIDER_HEADER} names it.
 */
public class DispatchFilter implements GlobalFilter, Ordered {
    private static final Logger log = LoggerFactory.getLogger(DispatchFilter.class);
    /** Names the provider that served the answer (its last attempt's). */
    public static final String PROVIDER_HEADER = "X-Sluice-Provider";
    /** How many times a waiting request may be sent to another line because its provider started failing. */
    private static final int MAX_SPILLS = 4;
    private final Dispatchers dispatchers;
    private final Clock clock;
    private final MeterRegistry meters;
    private final StageCounter stages;
    private final UpstreamTimeouts timeouts;
    private final RequestRewriter rewriter;
    private final UpstreamTargets targets;
    private final Map<String, Map<String, Counter>> responses = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Counter>> retries = new ConcurrentHashMap<>();
    /** A 503 without retry-after is tried again after this, not at once. */
    static final long DEFAULT_OVERLOAD_WAIT_MS = 500;

    public DispatchFilter(Dispatchers dispatchers, Clock clock, MeterRegistry meters, StageCounter stages,
                          UpstreamTimeouts timeouts, RequestRewriter rewriter, UpstreamTargets targets) {
        this.stages = stages;
        this.dispatchers = dispatchers;
        this.clock = clock;
        this.meters = meters;
        this.timeouts = timeouts;
        this.rewriter = rewriter;
        this.targets = targets;
        // The statuses the alerts watch and the retries, at zero from start for every provider, so a
        // dashboard's rate() sees the first (docs/metrics.md lists the rest as they come).
        for (ProviderSettings p : dispatchers.providers()) {
            for (String status : List.of("200", "429", "503", "timeout", "unreachable")) responses(status, p.name());
            for (String status : List.of("429", "503", "failover")) retries(status, p.name());
        }
    }

    /** Looked up once per status and provider, not in the registry on every answer. */
    private Counter responses(String status, String provider) {
        return responses.computeIfAbsent(provider, p -> new ConcurrentHashMap<>()).computeIfAbsent(status,
                s -> meters.counter("sluice.upstream.responses", "status", s, "provider", provider));
    }

    /** Calls tried again: after a 429 or a 503 (same provider, or the route's choice), or on another provider after a failure. */
    private Counter retries(String status, String provider) {
        return retries.computeIfAbsent(provider, p -> new ConcurrentHashMap<>()).computeIfAbsent(status,
                s -> Counter.builder("sluice.upstream.retries").tag("status", s).tag("provider", provider)
                        .description("Calls tried again after the provider pushed back or failed").register(meters));
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        RequestEstimate estimate = providerCost(RequestEstimate.ATTRIBUTE.get(exchange));
        String model = SluiceAttributes.MODEL.get(exchange);
        List<ProviderSettings> providers = SluiceAttributes.config(exchange).route(model);
        if (providers.isEmpty()) return modelNotFound(exchange, model);
        Tier tier = SluiceAttributes.tier(exchange);
        RequestOptions options = SluiceAttributes.OPTIONS.get(exchange);
        long now = clock.millis();
        Routed routed = new Routed(exchange, chain, model, SluiceAttributes.REQUEST_BODY.get(exchange), now + options.maxWaitMs());
        TooLarge tooLarge = null;
        for (ProviderSettings provider : providers) {
            ProviderDispatcher dispatcher = dispatchers.forModel(provider, model);
            if (dispatcher == null) continue; // the provider publishes no limits to protect
            BudgetLimits limits = dispatcher.limits();
            TooLarge over = TooLarge.of(estimate, limits);
            if (over != null) {
                if (tooLarge == null) tooLarge = over;
                continue; // another provider of the route may admit it
            }
            routed.add(provider, dispatcher, jobFor(exchange, dispatcher, limits, estimate, options, now));
        }
        if (routed.candidates.isEmpty()) {
            if (tooLarge != null) return tooLargeForProvider(exchange, tier, estimate, tooLarge);
            return unbudgeted(routed, providers.get(0));
        }
        // Nothing reached a provider until a call goes out (toProvider): a client that leaves while
        // its request waits in line is charged nothing.
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        return dispatch(routed, 1, options.maxWaitMs())
                .onErrorResume(GatewayBusyException.class, busy -> busy(exchange, tier, busy))
                .onErrorResume(e -> upstreamFailed(exchange, e));
    }

    /**
     * What the call spends of the provider's per-minute limits. Creating a batch spends a request
     * of them: its lines run in the provider's batch queue, under limits of their own, over hours
     * (the tenant's windows are charged the whole batch, at the quota stage).
     */
    private static RequestEstimate providerCost(RequestEstimate estimate) {
        return estimate.endpoint() == Endpoint.BATCHES ? estimate.withCost(estimate.model(), 0, 0) : estimate;
    }

    /**
     * What a call costs {@code dispatcher}'s budget: the prompt at that budget's learned ratio
     * (what the provider will count) and max_tokens, never past the minute's cap (what the
     * estimate says fits must stay servable); split where the provider limits input and output apart.
     */
    private Job jobFor(ServerWebExchange exchange, ProviderDispatcher dispatcher, BudgetLimits limits, RequestEstimate estimate,
                       RequestOptions options, long now) {
        double ratio = dispatchers.calibration().ratio(dispatcher.key());
        long charge = Math.min(SlidingWindow.cap(limits.tokensPerMinute()), TokenCalibration.charge(
                estimate.promptTokens(), estimate.maxOutputTokens(), ratio));
        Job job = Job.of(exchange.getRequest().getId(), SluiceAttributes.tenant(exchange).id(), SluiceAttributes.tier(exchange).priority(),
                options.batch() ? JobClass.BATCH : JobClass.INTERACTIVE, charge, now, now + options.maxWaitMs());
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        if (!limitIn && !limitOut) return job;
        // The calibrated prompt, and max_tokens reserved as the provider reserves it (settled to what was written).
        return job.withSplit(
                limitIn ? Math.min(SlidingWindow.cap(limits.inputTokensPerMinute()),
                        TokenCalibration.charge(estimate.promptTokens(), 0, ratio)) : 0,
                limitOut ? Math.max(0, estimate.maxOutputTokens()) : 0);
    }

    /**
     * Into the line of a budget of the route (the first that can start it within the spill
     * wait, else the soonest), then the call. A request whose line's provider starts failing
     * while it waits was never sent: it is routed again.
     */
    private Mono<Void> dispatch(Routed r, int attempt, long maxWaitMs) {
        return dispatchers.submit(r.untried(), maxWaitMs, SluiceAttributes.decisionBudget(r.exchange))
                .doOnNext(lease -> r.handedOverAtMs = clock.millis())
                // The lease comes on the dispatch loop, which every request shares: the call goes on from this request's own loop.
                .publishOn(RequestLoop.of(r.exchange))
                .flatMap(lease -> call(r, lease, attempt))
                .onErrorResume(ProviderFailingException.class, failing -> r.spilled++ < MAX_SPILLS
                        ? dispatch(r, attempt, r.waitLeftMs(clock.millis()))
                        : Mono.error(GatewayBusyException.providersFailing(r.waitLeftMs(clock.millis()))));
    }

    /** A call no budget guards (it names no model and the provider lists no "*"): straight to the provider. */
    private Mono<Void> unbudgeted(Routed r, ProviderSettings provider) {
        ServerWebExchange exchange = r.exchange;
        toProvider(r, provider);
        UpstreamAnswer answer = new UpstreamAnswer(exchange, timeouts, false, false, status -> { }, clock);
        return r.chain.filter(exchange.mutate().response(answer).build())
                .doOnSuccess(done -> responses(Integer.toString(answer.status()), provider.name()).increment())
                .onErrorResume(e -> upstreamFailed(exchange, e));
    }

    /** This attempt goes to {@code provider}: its URL and key, the model under its own name, and the answer says who served it. */
    private void toProvider(Routed r, ProviderSettings provider) {
        SluiceAttributes.NEVER_SENT.set(r.exchange, false);
        SluiceAttributes.PROVIDER.set(r.exchange, provider.name());
        UpstreamTargets.ATTRIBUTE.set(r.exchange, targets.of(provider));
        if (r.body != null) {
            String upstreamModel = provider.upstreamModel(r.model);
            SluiceAttributes.REQUEST_BODY.set(r.exchange, upstreamModel == null || upstreamModel.equals(r.model)
                    ? r.body : rewriter.withModel(r.body, upstreamModel));
        }
        r.exchange.getResponse().getHeaders().set(PROVIDER_HEADER, provider.name());
    }

    /** 404 model_not_found: no provider serves this model (a downgrade's target is checked when tiers.yaml is read). */
    private static Mono<Void> modelNotFound(ServerWebExchange exchange, String model) {
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        return OpenAiErrors.modelNotFound(exchange, model);
    }

    /** No answer in time (the concurrency limit's evidence), as opposed to no answer at all (refused, reset). */
    private static boolean isTimeout(Throwable e) {
        return e instanceof TimeoutException
                || e instanceof ResponseStatusException r && r.getStatusCode().value() == 504;
    }

    /**
     * No connection was made: refused, or the connect timed out (Netty's exceptions for both are
     * {@link java.net.ConnectException}s). Nothing reached the provider. A reset or a closed
     * connection is not this: the request may have arrived.
     */
    static boolean neverConnected(Throwable e) {
        return Causes.any(e, t -> t instanceof ConnectException);
    }

    /**
     * The client's body passed its operation's limit as it streamed and the surface cut it: the
     * provider did nothing wrong (no failure counted, no other provider tried).
     */
    private static boolean cutByTheSurface(Throwable e) {
        return Causes.any(e, t -> t instanceof RequestBodyTooLarge);
    }

    /** The provider could not be reached or did not answer in time: 502 or 504 in OpenAI's shape. */
    private Mono<Void> upstreamFailed(ServerWebExchange exchange, Throwable e) {
        if (exchange.getResponse().isCommitted()) return Mono.error(e); // mid-stream: nothing left to say
        if (cutByTheSurface(e)) return Mono.error(e); // the surface answers it: 413
        boolean timeout = isTimeout(e);
        String provider = SluiceAttributes.PROVIDER.get(exchange);
        responses(timeout ? "timeout" : "unreachable", provider == null ? "none" : provider).increment();
        ServerWebExchangeUtils.reset(exchange);
        return timeout
                ? OpenAiErrors.write(exchange, HttpStatus.GATEWAY_TIMEOUT, "server_error", "upstream_timeout",
                        "The provider did not answer in time.")
                : OpenAiErrors.write(exchange, HttpStatus.BAD_GATEWAY, "server_error", "upstream_unavailable",
                        "The provider could not be reached.");
    }

    /** One attempt at the provider with {@code lease}; a push-back goes back in line, a failure to the next provider. */
    private Mono<Void> call(Routed r, Lease lease, int attempt) {
        ServerWebExchange exchange = r.exchange;
        ProviderDispatcher dispatcher = r.dispatcherOf(lease);
        ProviderSettings provider = r.providerOf(dispatcher);
        String name = provider.name();
        toProvider(r, provider);
        long queued = r.waited.addAndGet(lease.queuedMs());
        if (queued > 0) exchange.getResponse().getHeaders().set("X-Sluice-Queue-Wait-Ms", Long.toString(queued));
        boolean mayFailOver = attempt < dispatchers.settings().maxAttempts() && r.hasAnotherThan(name);
        UpstreamAnswer answer = new UpstreamAnswer(exchange, timeouts, true, mayFailOver, status -> seen(name, status), clock);
        AtomicBoolean ended = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        long started = clock.millis();
        SentRequest sent = new SentRequest(exchange.getRequest(), clock);
        long handedOverAtMs = r.handedOverAtMs;
        // Settled as sent: the count delay runs from when the body left, which under a burst is well after the lease.
        Supplier<Lease> asSent = () -> lease.sentAfter(SentRequest.countsLaterByMs(handedOverAtMs, sent.sentAtMs(),
                answer.headersAtMs(), answer.countedByMs() != Long.MIN_VALUE, dispatcher.limits().countDelayMs()));
        return firstByteWithin(r.chain.filter(exchange.mutate().request(sent).response(answer).build()), answer,
                        firstByteTimeout(lease.probe(), mayFailOver))
                .doOnError(error::set)
                .doFinally(signal -> {
                    // Cancelled (client gone) or failed (timeout, reset, connection refused): give the slot back;
                    // a connection never made is refunded whole, it cost the provider nothing.
                    if (ended.compareAndSet(false, true)) {
                        if (signal == SignalType.ON_ERROR && neverConnected(error.get())) {
                            dispatcher.notSent(lease).subscribe();
                            return;
                        }
                        AimdLimit.Outcome outcome = signal != SignalType.ON_ERROR ? AimdLimit.Outcome.SUCCESS
                                : isTimeout(error.get()) ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.FAILED;
                        // Without the answer's usage the charge stays (the safe side); a stream cut after
                        // its usage arrived settles the input and output windows from it.
                        Usage used = usageOf(exchange);
                        dispatcher.finish(asSent.get(), outcome, 0, inputDelta(dispatcher, lease, used), outputDelta(dispatcher, lease, used),
                                clock.millis() - started, answer.countedByMs()).subscribe();
                    }
                })
                // The call's own failure, as a signal: what follows (a retry, another provider) has failures of its own.
                .materialize()
                .flatMap(signal -> {
                    if (signal.isOnError()) return failedCall(r, name, attempt, signal.getThrowable());
                    ended.set(true);
                    correctFromProvider(dispatcher, answer);
                    responses(Integer.toString(answer.status()), name).increment();
                    if (answer.failedOver()) {
                        dispatcher.finish(asSent.get(), AimdLimit.Outcome.SUCCESS, 0, 0, 0, clock.millis() - started,
                                answer.countedByMs()).subscribe();
                        return failedOver(r, name, attempt);
                    }
                    if (!answer.pushedBack()) return finished(exchange, dispatcher, asSent.get(), answer, started);
                    return pushedBack(r, dispatcher, lease, answer, attempt);
                });
    }

    /**
     * How long this call may wait for its provider's status and headers before it goes to the
     * next provider (0: as long as the HTTP client waits). Only where there is a next provider:
     * alone, waiting is the better deal. A probe of a failing provider gets the probe timeout.
     */
    private Duration firstByteTimeout(boolean probe, boolean mayFailOver) {
        if (!mayFailOver) return Duration.ZERO;
        DispatchProperties.Failover failover = dispatchers.settings().failover();
        Duration configured = failover.firstByteTimeout();
        if (!probe) return configured;
        return configured.isZero() || failover.probeTimeout().compareTo(configured) < 0 ? failover.probeTimeout() : configured;
    }

    /**
     * The call, failed with a {@link java.util.concurrent.TimeoutException} if the provider's
     * headers have not arrived within {@code timeout} (and cancelled: the connection is closed).
     * Once the answer has begun the timer has no say; what follows is {@link UpstreamTimeouts}'.
     */
    private static Mono<Void> firstByteWithin(Mono<Void> call, UpstreamAnswer answer, Duration timeout) {
        if (timeout.isZero()) return call;
        return call.timeout(Mono.delay(timeout).flatMap(t -> answer.begun() ? Mono.never() : Mono.just(t)),
                Mono.error(() -> new TimeoutException("no status and headers from the provider within "
                        + timeout.toMillis() + " ms")));
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
    private Mono<Void> failedCall(Routed r, String provider, int attempt, Throwable e) {
        if (e instanceof GatewayBusyException || cutByTheSurface(e)) return Mono.error(e);
        // No connection, no prompt processed: free, unless an earlier attempt reached a provider.
        // Marked here, before the answer is written: the call's doFinally runs after it.
        if (!neverConnected(e)) r.reachedAProvider = true;
        else if (!r.reachedAProvider) SluiceAttributes.NEVER_SENT.set(r.exchange, true);
        dispatchers.failed(provider);
        boolean open = !r.exchange.getResponse().isCommitted() && attempt < dispatchers.settings().maxAttempts()
                && r.hasAnotherThan(provider);
        if (!open) return Mono.error(e);
        log.warn("The call to provider {} failed ({}); trying the next on the route", provider, e.toString());
        return failedOver(r, provider, attempt);
    }

    /** To the route's other providers, with what is left of the caller's wait. */
    private Mono<Void> failedOver(Routed r, String provider, int attempt) {
        r.tried.add(provider);
        retries("failover", provider).increment();
        resetForRetry(r.exchange);
        return dispatch(r, attempt + 1, r.waitLeftMs(clock.millis()));
    }

    private Mono<Void> finished(ServerWebExchange exchange, ProviderDispatcher dispatcher, Lease lease, UpstreamAnswer answer,
                                long started) {
        RequestEstimate estimate = providerCost(RequestEstimate.ATTRIBUTE.get(exchange));
        // A read's answer may show the usage of the call that made the object: not this call's.
        Usage used = estimate.endpoint() == Endpoint.OTHER || estimate.endpoint() == Endpoint.BATCHES ? null : usageOf(exchange);
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

    private Mono<Void> pushedBack(Routed r, ProviderDispatcher dispatcher, Lease lease, UpstreamAnswer answer, int attempt) {
        ServerWebExchange exchange = r.exchange;
        String provider = dispatcher.provider();
        long pause = answer.retryAfterMs() > 0 ? answer.retryAfterMs() : 1_000;
        boolean tooMany = answer.status() == 429;
        Mono<Void> settle = tooMany
                ? dispatcher.pushedBack(lease, pause)
                : dispatcher.overloaded(lease);
        // A 429 pauses the whole budget (the queue waits it out); a 503 concerns this call: it
        // waits here, out of line and holding no slot, for what the provider asked.
        long wait = tooMany ? 0 : answer.retryAfterMs() >= 0 ? answer.retryAfterMs() : DEFAULT_OVERLOAD_WAIT_MS;
        long left = lease.job().deadlineMs() - clock.millis();
        if (attempt >= dispatchers.settings().maxAttempts() || wait > left && !r.hasAnotherThan(provider)) {
            long retry = tooMany ? pause : Math.max(wait, DEFAULT_OVERLOAD_WAIT_MS);
            GatewayBusyException why = wait > left ? GatewayBusyException.overloadedPastMaxWait(wait, retry)
                    : GatewayBusyException.pushedBackEveryTime(attempt, retry);
            return settle.then(Mono.defer(() -> {
                resetForRetry(exchange);
                return busy(exchange, SluiceAttributes.tier(exchange), why);
            }));
        }
        retries(tooMany ? "429" : "503", provider).increment();
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
            return dispatcher.resubmit(lease.job().nextAttempt())
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
        dispatcher.correct(answer.remainingRequests(), answer.remainingTokens(), Math.max(answer.resetMs(), 0)).subscribe();
    }

    /**
     * 400 request_too_large: more tokens than the provider admits in a whole minute (in total, or
     * of input or of output where it limits them apart), on every provider of the route. No wait
     * would help, so not a retryable 503; the tenant's charge is given back (it was never sent).
     */
    private Mono<Void> tooLargeForProvider(ServerWebExchange exchange, Tier tier, RequestEstimate estimate, TooLarge over) {
        stages.count(SluiceAttributes.tenant(exchange).id(), tier.name(), Stage.TOO_LARGE);
        SluiceAttributes.NEVER_SENT.set(exchange, true);
        String unit = over.unit();
        String message = String.format("This request needs %d %s (prompt %d + up to %d output) but the provider admits at "
                        + "most %d %s per minute, so it can never be served. Lower max_tokens or shorten the input.",
                over.requested(), unit, estimate.promptTokens(), estimate.maxOutputTokens(), over.limit(), unit);
        return OpenAiErrors.write(exchange, HttpStatus.BAD_REQUEST, "invalid_request_error", "request_too_large",
                message, Map.of("limit_" + unit.replace(' ', '_'), over.limit(), "requested_" + unit.replace(' ', '_'), over.requested()));
    }

    /** What a request needs beyond a budget's whole minute, or null when it fits. */
    record TooLarge(String unit, long requested, long limit) {
        static TooLarge of(RequestEstimate estimate, BudgetLimits limits) {
            if (estimate.totalTokens() > SlidingWindow.cap(limits.tokensPerMinute())) {
                return new TooLarge("tokens", estimate.totalTokens(), limits.tokensPerMinute());
            }
            if (limits.inputTokensPerMinute() > 0 && estimate.promptTokens() > SlidingWindow.cap(limits.inputTokensPerMinute())) {
                return new TooLarge("input tokens", estimate.promptTokens(), limits.inputTokensPerMinute());
            }
            if (limits.outputTokensPerMinute() > 0 && estimate.maxOutputTokens() > SlidingWindow.cap(limits.outputTokensPerMinute())) {
                return new TooLarge("output tokens", estimate.maxOutputTokens(), limits.outputTokensPerMinute());
            }
            return null;
        }
    }

    /**
     * One request's way through its route: the budgets that can take it (in route order, each
     * with the job as it charges), the providers that failed it, and the original body (each
     * provider may know the model by its own name).
     */
    private static final class Routed {
        final ServerWebExchange exchange;
        final GatewayFilterChain chain;
        final String model;
        final byte[] body;
        final long deadlineMs;
        final List<ProviderDispatcher.Candidate> candidates = new ArrayList<>(2);
        final Map<String, ProviderSettings> providers = new HashMap<>(4);
        final Set<String> tried = new HashSet<>(2);
        final AtomicLong waited = new AtomicLong();
        /** When the current attempt's lease was handed over (this gateway's clock): one attempt at a time. */
        volatile long handedOverAtMs = Long.MIN_VALUE;
        int spilled;
        /** Whether an attempt made a connection (the provider may have processed the prompt). */
        volatile boolean reachedAProvider;

        Routed(ServerWebExchange exchange, GatewayFilterChain chain, String model, byte[] body, long deadlineMs) {
            this.exchange = exchange;
            this.chain = chain;
            this.model = model;
            this.body = body;
            this.deadlineMs = deadlineMs;
        }

        void add(ProviderSettings provider, ProviderDispatcher dispatcher, Job job) {
            candidates.add(new ProviderDispatcher.Candidate(dispatcher, job));
            providers.put(dispatcher.key(), provider);
        }

        /** The route less the providers that failed this request; all of it when every one has. */
        List<ProviderDispatcher.Candidate> untried() {
            if (tried.isEmpty()) return candidates;
            List<ProviderDispatcher.Candidate> left = new ArrayList<>(candidates.size());
            for (ProviderDispatcher.Candidate c : candidates) if (!tried.contains(c.dispatcher().provider())) left.add(c);
            return left.isEmpty() ? candidates : left;
        }

        boolean hasAnotherThan(String provider) {
            for (ProviderDispatcher.Candidate c : candidates) {
                String p = c.dispatcher().provider();
                if (!p.equals(provider) && !tried.contains(p)) return true;
            }
            return false;
        }

        ProviderDispatcher dispatcherOf(Lease lease) {
            for (ProviderDispatcher.Candidate c : candidates) if (c.dispatcher().key().equals(lease.budgetKey())) return c.dispatcher();
            throw new IllegalStateException("a lease of budget " + lease.budgetKey() + " outside the route");
        }

        ProviderSettings providerOf(ProviderDispatcher dispatcher) {
            return providers.get(dispatcher.key());
        }

        long waitLeftMs(long nowMs) {
            return Math.max(0, deadlineMs - nowMs);
        }
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
