package dev.sluice.gateway.simulation;

import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.Dispatchers;
import dev.sluice.gateway.dispatch.ProviderDispatcher;
import dev.sluice.gateway.dispatch.SimulationSeams;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderFailingException;
import dev.sluice.gateway.dispatch.lease.FinishedCall;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.dispatch.upstream.FirstByteTimeout;
import dev.sluice.gateway.dispatch.upstream.SentRequest;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.usage.Usage;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Scheduler;

/**
 * The dispatch stage of one replica, as {@code dispatch/DispatchFilter} and its parts (RouteChoice, CallWithFailover, DispatchRefusals) do it, with the
 * {@code ServerWebExchange} replaced by an {@link Exchange} and Spring Cloud Gateway's proxy call
 * by the simulated provider: route choice through {@link Dispatchers#submit}, the call, failover to
 * the route's next provider, a 429 or 503 back in line, the lease settled through the dispatcher
 * (finish, pushedBack, overloaded, notSent) and the provider's remaining figures through correct.
 * Each method says which of theirs it mirrors; keep them in step with it. What the
 * filter does only for HTTP (headers, metrics, the body's model rewritten per provider) is left out.
 */
final class DispatchPath {
    /** CallWithFailover.MAX_SPILLS. */
    private static final int MAX_SPILLS = 4;

    private final SimReplica replica;
    private final Dispatchers dispatchers;
    private final Clock clock;
    private final Scheduler requestLoop;

    DispatchPath(SimReplica replica) {
        this.replica = replica;
        this.dispatchers = replica.dispatchers;
        this.clock = replica.clock;
        this.requestLoop = replica.time;
    }

    /** DispatchFilter.filter and RouteChoice.route: the route's budgets, each job as that budget charges it; too large for all of them: 400. */
    Mono<Void> filter(Exchange x) {
        Attempt a = x.attempt;
        List<ProviderSettings> providers = replica.config.current().route(x.model);
        long now = clock.millis();
        Routed routed = new Routed(x, now + a.maxWaitMs);
        boolean tooLarge = false;
        for (ProviderSettings provider : providers) {
            ProviderDispatcher dispatcher = dispatchers.forModel(provider, x.model);
            if (dispatcher == null) continue;
            BudgetLimits limits = SimulationSeams.limits(dispatcher);
            if (a.estimate() > SlidingWindow.cap(limits.tokensPerMinute())) { // TooLarge.of, without split limits
                tooLarge = true;
                continue;
            }
            routed.add(provider, dispatcher, jobFor(x, dispatcher, limits, now));
        }
        if (routed.candidates.isEmpty()) {
            if (!tooLarge) throw new IllegalStateException("the simulated route has no budget for " + x.model);
            x.neverSent = true; // tooLargeForProvider
            return x.write(400, "too-large-for-provider", -1, null);
        }
        x.neverSent = true; // nothing reached a provider until a call goes out
        return dispatch(routed, 1, a.maxWaitMs)
                .onErrorResume(GatewayBusyException.class, busy -> busy(x, busy))
                .onErrorResume(e -> upstreamFailed(x, e));
    }

    /** RouteChoice.jobFor: the prompt at the budget's learned ratio and max_tokens, capped at the minute. */
    private Job jobFor(Exchange x, ProviderDispatcher dispatcher, BudgetLimits limits, long now) {
        Attempt a = x.attempt;
        double ratio = dispatchers.calibration().ratio(dispatcher.key());
        long charge = Math.min(
                SlidingWindow.cap(limits.tokensPerMinute()),
                TokenCalibration.charge(a.promptTokens, a.maxTokens, ratio));
        return Job.of(
                a.id,
                a.tenant,
                x.tier.priority(),
                a.batch ? JobClass.BATCH : JobClass.INTERACTIVE,
                charge,
                now,
                now + a.maxWaitMs);
    }

    /** CallWithFailover.dispatch: into a line of the route, then the call; a line whose provider starts failing: routed again. */
    private Mono<Void> dispatch(Routed r, int attempt, long maxWaitMs) {
        boolean first = attempt == 1 && r.spilled == 0 && r.tried.isEmpty();
        SimReplica.Wait wait = new SimReplica.Wait(r.x.attempt, first);
        return replica.waiting(wait, submit(r, maxWaitMs, wait))
                // CallWithFailover hops to the request's own loop here; in the simulation that is another task on the
                // one clock.
                .publishOn(requestLoop)
                .flatMap(lease -> call(r, lease, attempt))
                .onErrorResume(
                        ProviderFailingException.class,
                        failing -> r.spilled++ < MAX_SPILLS
                                ? dispatch(r, attempt, r.waitLeftMs(clock.millis()))
                                : Mono.error(SimulationSeams.providersFailing(r.waitLeftMs(clock.millis()))));
    }

    /**
     * {@link Dispatchers#submit}, with the door's answer read just before the request is placed
     * (the probe runs on the dispatch loop right before the placement, which comes next in that
     * loop's order): which line it joins (the fairness check's backlog) and, for a request's first
     * placement, what the door promised.
     */
    private Mono<Lease> submit(Routed r, long maxWaitMs, SimReplica.Wait wait) {
        List<ProviderDispatcher.Candidate> route = r.untried();
        // After the door's first look at each budget (RouteChoice.seen), as the placement itself comes.
        return SimulationSeams.firstLook(route).then(Mono.defer(() -> {
            replica.time.schedule(() -> probeDoor(wait, route, maxWaitMs));
            return dispatchers.submit(route, maxWaitMs);
        }));
    }

    /** RouteChoice.choose, read without placing: the first that starts it within the spill wait, else the soonest. */
    private void probeDoor(SimReplica.Wait wait, List<ProviderDispatcher.Candidate> route, long maxWaitMs) {
        Attempt a = wait.attempt;
        long spill = dispatchers.settings().spillWait().toMillis();
        DoorDecision best = null;
        String key = null;
        for (ProviderDispatcher.Candidate c : route) {
            ProviderDispatcher d = c.dispatcher();
            long now = clock.millis();
            Job job = c.job().waitingFrom(now, maxWaitMs);
            DoorDecision decision = SimulationSeams.doorFor(d, job, maxWaitMs);
            if (decision.accepted()
                    && decision.estimatedWaitMs() <= spill
                    && d.health().probeDue(now)) {
                best = decision;
                key = d.key();
                break;
            }
            if (!decision.accepted()) continue;
            if (best == null || decision.estimatedWaitMs() < best.estimatedWaitMs()) {
                best = decision;
                key = d.key();
            }
            if (decision.estimatedWaitMs() <= spill) {
                best = decision;
                key = d.key();
                break;
            }
        }
        if (key != null) replica.joined(wait, key);
        if (!wait.first) return;
        a.placedAtMs = replica.now();
        a.doorAccepted = best != null;
        a.doorEstimateMs = best == null ? -1 : best.estimatedWaitMs();
        a.doorKey = key;
        replica.trace.event(a.placedAtMs, "door", a.id, a.doorAccepted ? 1 : 0, a.doorEstimateMs);
    }

    /** CallWithFailover.call: one attempt at the provider with {@code lease}; a push-back goes back in line, a failure to the next provider. */
    private Mono<Void> call(Routed r, Lease lease, int attempt) {
        Exchange x = r.x;
        ProviderDispatcher dispatcher = r.dispatcherOf(lease);
        ProviderSettings provider = r.providerOf(dispatcher);
        String name = provider.name();
        x.provider = name;
        x.neverSent = false; // toProvider
        x.queuedMs += lease.queuedMs();
        boolean mayFailOver = attempt < dispatchers.settings().maxAttempts() && r.hasAnotherThan(name);
        Answer answer = new Answer(x, true, mayFailOver, status -> seen(name, status));
        AtomicBoolean ended = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        long started = clock.millis();
        // Settled as sent (CallWithFailover's asSent): handed over, and sent, now; an answer that proves nothing moves
        // the charge by the longest count delay, never later than its headers.
        Supplier<Lease> asSent = () -> lease.sentAfter(SentRequest.countsLaterByMs(
                started,
                started,
                answer.headersAtMs,
                answer.countedByMs != Long.MIN_VALUE,
                dispatcher.limits().countDelayMs()));
        dispatcher.sent(lease); // SentRequest: the simulated request goes out as it is handed over
        replica.trace.event(
                replica.now(), "call", x.attempt.id, attempt, lease.job().tokens());
        Mono<Void> upstream =
                replica.providers.get(name).call(x.attempt, x.attempt.maxTokens).flatMap(answer::handle);
        return firstByteWithin(
                        upstream,
                        answer,
                        FirstByteTimeout.of(dispatchers.settings().failover(), lease.probe(), mayFailOver))
                .doOnError(error::set)
                .doFinally(signal -> {
                    // Cancelled (client gone) or failed (timeout, reset, connection refused): give the slot back;
                    // a connection never made is refunded whole, it cost the provider nothing.
                    if (ended.compareAndSet(false, true)) {
                        if (signal == SignalType.ON_ERROR && SimulationSeams.neverConnected(error.get())) {
                            dispatcher.notSent(lease).subscribe();
                            return;
                        }
                        AimdLimit.Outcome outcome = signal != SignalType.ON_ERROR
                                ? AimdLimit.Outcome.SUCCESS
                                : isTimeout(error.get()) ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.FAILED;
                        dispatcher
                                .finish(asSent.get(), new FinishedCall(outcome, 0, 0, 0), answer.countedByMs)
                                .subscribe();
                    }
                })
                .materialize()
                .flatMap(signal -> {
                    if (signal.isOnError()) return failedCall(r, name, attempt, signal.getThrowable());
                    ended.set(true);
                    correctFromProvider(dispatcher, answer);
                    if (answer.failedOver) {
                        dispatcher
                                .finish(asSent.get(), FinishedCall.FAILED_OVER, answer.countedByMs)
                                .subscribe();
                        return failedOver(r, name, attempt);
                    }
                    if (!answer.pushedBack) return finished(x, dispatcher, asSent.get(), answer);
                    return pushedBack(r, dispatcher, lease, answer, attempt);
                });
    }

    /** FirstByteTimeout.within, over the simulated answer. */
    private static Mono<Void> firstByteWithin(Mono<Void> call, Answer answer, Duration timeout) {
        if (timeout.isZero()) return call;
        return call.timeout(
                Mono.delay(timeout).flatMap(t -> answer.begun ? Mono.never() : Mono.just(t)),
                Mono.error(() -> new TimeoutException(
                        "no status and headers from the provider within " + timeout.toMillis() + " ms")));
    }

    /** CallWithFailover.seen. */
    private void seen(String provider, int status) {
        if (status >= 500 && status != 503) dispatchers.failed(provider);
        else dispatchers.answered(provider);
    }

    /** CallFailures.isTimeout. */
    private static boolean isTimeout(Throwable e) {
        return e instanceof TimeoutException;
    }

    /** CallWithFailover.failedCall. */
    private Mono<Void> failedCall(Routed r, String provider, int attempt, Throwable e) {
        if (e instanceof GatewayBusyException) return Mono.error(e);
        if (!SimulationSeams.neverConnected(e)) r.reachedAProvider = true;
        else if (!r.reachedAProvider) r.x.neverSent = true;
        dispatchers.failed(provider);
        boolean open = !r.x.committed && attempt < dispatchers.settings().maxAttempts() && r.hasAnotherThan(provider);
        if (!open) return Mono.error(e);
        return failedOver(r, provider, attempt);
    }

    /** CallWithFailover.failedOver. */
    private Mono<Void> failedOver(Routed r, String provider, int attempt) {
        r.tried.add(provider);
        r.x.resetForRetry();
        return dispatch(r, attempt + 1, r.waitLeftMs(clock.millis()));
    }

    /** CallWithFailover.finished: the prompt's difference corrected, the ratio learned, the slot back in the background. */
    private Mono<Void> finished(Exchange x, ProviderDispatcher dispatcher, Lease lease, Answer answer) {
        Usage used = x.usage;
        long chargedPrompt = Math.max(0, lease.job().tokens() - x.attempt.maxTokens);
        long delta = used == null ? 0 : used.promptTokens() - chargedPrompt;
        if (used != null && answer.status / 100 == 2) {
            dispatchers.calibration().observe(lease.budgetKey(), x.attempt.promptTokens, used.promptTokens());
        }
        AimdLimit.Outcome outcome = answer.status == 504 ? AimdLimit.Outcome.TIMEOUT : AimdLimit.Outcome.SUCCESS;
        dispatcher
                .finish(lease, new FinishedCall(outcome, delta, 0, 0), answer.countedByMs)
                .subscribe();
        return Mono.empty();
    }

    /** CallWithFailover.pushedBack: a 429 pauses the budget and the line waits; a 503 waits here; bounded attempts. */
    private Mono<Void> pushedBack(Routed r, ProviderDispatcher dispatcher, Lease lease, Answer answer, int attempt) {
        Exchange x = r.x;
        String provider = dispatcher.provider();
        long pause = answer.retryAfterMs > 0 ? answer.retryAfterMs : 1_000;
        boolean tooMany = answer.status == 429;
        if (tooMany) replica.pushedBack(provider, pause);
        Mono<Void> settle = tooMany ? dispatcher.pushedBack(lease, pause) : dispatcher.overloaded(lease);
        long wait =
                tooMany ? 0 : answer.retryAfterMs >= 0 ? answer.retryAfterMs : SimulationSeams.defaultOverloadWaitMs();
        long left = lease.job().deadlineMs() - clock.millis();
        if (attempt >= dispatchers.settings().maxAttempts() || wait > left && !r.hasAnotherThan(provider)) {
            long retry = tooMany ? pause : Math.max(wait, SimulationSeams.defaultOverloadWaitMs());
            GatewayBusyException why = wait > left
                    ? SimulationSeams.overloadedPastMaxWait(wait, retry)
                    : SimulationSeams.pushedBackEveryTime(attempt, retry);
            return settle.then(Mono.defer(() -> {
                x.resetForRetry();
                return busy(x, why);
            }));
        }
        if (r.candidates.size() > 1) {
            return settle.then(Mono.defer(() -> {
                x.resetForRetry();
                return dispatch(r, attempt + 1, r.waitLeftMs(clock.millis()));
            }));
        }
        return settle.then(wait > 0 ? Mono.delay(Duration.ofMillis(wait)).then() : Mono.<Void>empty())
                .then(Mono.defer(() -> {
                    x.resetForRetry();
                    SimReplica.Wait again = new SimReplica.Wait(x.attempt, false);
                    return replica.waiting(
                                    again,
                                    dispatcher
                                            .resubmit(lease.job().nextAttempt())
                                            .doOnSubscribe(sub -> replica.joined(again, dispatcher.key())))
                            .publishOn(requestLoop)
                            .flatMap(next -> call(r, next, attempt + 1));
                }));
    }

    /** CallWithFailover.correctFromProvider. */
    private static void correctFromProvider(ProviderDispatcher dispatcher, Answer answer) {
        if (answer.remainingRequests < 0 && answer.remainingTokens < 0) return;
        dispatcher
                .correct(answer.remainingRequests, answer.remainingTokens, Math.max(answer.resetMs, 0))
                .subscribe();
    }

    /** DispatchRefusals.upstreamFailed: no answer from any provider, 502 or 504. */
    private Mono<Void> upstreamFailed(Exchange x, Throwable e) {
        if (x.committed) return Mono.error(e);
        return isTimeout(e)
                ? x.write(504, "504-no-answer-in-time", -1, null)
                : x.write(502, "502-unreachable", -1, null);
    }

    /** DispatchRefusals.busy: 503 gateway_busy, never sent (the settle stage refunds it). */
    private Mono<Void> busy(Exchange x, GatewayBusyException busy) {
        x.neverSent = true;
        long retryMs = Math.max(1, busy.retryAfterMs());
        return x.write(503, "busy:" + BusyKind.of(busy), retryMs, null);
    }

    /**
     * UpstreamAnswer, for the simulated answer: reads the status and the provider's headers as they
     * arrive (the circuit is told), holds back a push-back (429, 503) to be tried again and, where
     * another provider can serve, any other 5xx; replaces a 5xx with the gateway's 502 or 504;
     * lets anything else pass (the settle stage records the usage of a 2xx).
     */
    private final class Answer {
        final Exchange x;
        final boolean mayRetry;
        final boolean mayFailOver;
        final java.util.function.IntConsumer statusSeen;
        volatile boolean begun;
        boolean pushedBack;
        boolean failedOver;
        long retryAfterMs = -1;
        int status;
        long remainingRequests = -1;
        long remainingTokens = -1;
        long resetMs = -1;
        long countedByMs = Long.MIN_VALUE;
        long headersAtMs = Long.MIN_VALUE;

        Answer(Exchange x, boolean mayRetry, boolean mayFailOver, java.util.function.IntConsumer statusSeen) {
            this.x = x;
            this.mayRetry = mayRetry;
            this.mayFailOver = mayFailOver;
            this.statusSeen = statusSeen;
        }

        Mono<Void> handle(SimProvider.Answer a) {
            begun = true;
            headersAtMs = clock.millis();
            status = a.status();
            remainingRequests = a.remainingRequests();
            remainingTokens = a.remainingTokens();
            resetMs = a.resetMs();
            countedByMs = SimulationSeams.countedBy(clock.millis(), a.processingMs(), false);
            if (mayRetry && (status == 429 || status == 503)) {
                pushedBack = true;
                retryAfterMs = a.retryAfterMs();
            }
            statusSeen.accept(status);
            if (pushedBack) return Mono.empty();
            if (mayFailOver && status >= 500 && status != 503) {
                failedOver = true;
                return Mono.empty();
            }
            if (status >= 500) {
                return status == 504
                        ? x.write(504, "504-upstream-timeout", -1, null)
                        : x.write(502, "502-upstream-error", -1, null);
            }
            return x.write(status, status == 200 ? "served" : Integer.toString(status), -1, a.usage());
        }
    }

    /** RoutedRequest: one request's way through its route. */
    private static final class Routed {
        final Exchange x;
        final long deadlineMs;
        final List<ProviderDispatcher.Candidate> candidates = new ArrayList<>(2);
        final Map<String, ProviderSettings> providers = new HashMap<>(4);
        final Set<String> tried = new HashSet<>(2);
        int spilled;
        boolean reachedAProvider;

        Routed(Exchange x, long deadlineMs) {
            this.x = x;
            this.deadlineMs = deadlineMs;
        }

        void add(ProviderSettings provider, ProviderDispatcher dispatcher, Job job) {
            candidates.add(new ProviderDispatcher.Candidate(dispatcher, job));
            providers.put(dispatcher.key(), provider);
        }

        List<ProviderDispatcher.Candidate> untried() {
            if (tried.isEmpty()) return candidates;
            List<ProviderDispatcher.Candidate> left = new ArrayList<>(candidates.size());
            for (ProviderDispatcher.Candidate c : candidates)
                if (!tried.contains(c.dispatcher().provider())) left.add(c);
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
            for (ProviderDispatcher.Candidate c : candidates)
                if (c.dispatcher().key().equals(lease.budgetKey())) return c.dispatcher();
            throw new IllegalStateException("a lease of budget " + lease.budgetKey() + " outside the route");
        }

        ProviderSettings providerOf(ProviderDispatcher dispatcher) {
            return providers.get(dispatcher.key());
        }

        long waitLeftMs(long nowMs) {
            return Math.max(0, deadlineMs - nowMs);
        }
    }
}
