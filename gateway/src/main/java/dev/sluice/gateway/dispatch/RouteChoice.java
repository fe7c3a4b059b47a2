package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.RequestOptions;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.dispatch.health.ProviderFailingException;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.store.DecisionBudget;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Which budgets of a model's route can take a request, and what it costs each: the job as that
 * budget charges it (the prompt at its provider's learned ratio). Which of them it then waits in
 * is chosen on the dispatch loop, by their doors ({@link #enter}).
 */
final class RouteChoice {
    private final Dispatchers dispatchers;

    RouteChoice(Dispatchers dispatchers) {
        this.dispatchers = dispatchers;
    }

    /** The request's way through its route; no candidate when none can take it, with why if it is too large for all. */
    record Route(RoutedRequest request, TooLarge tooLarge) {}

    Route route(
            ServerWebExchange exchange,
            GatewayFilterChain chain,
            String model,
            List<ProviderSettings> providers,
            RequestEstimate estimate,
            RequestOptions options,
            long now) {
        RoutedRequest routed = new RoutedRequest(
                exchange, chain, model, SluiceAttributes.REQUEST_BODY.get(exchange), now + options.maxWaitMs());
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
        return new Route(routed, tooLarge);
    }

    /**
     * What the call spends of the provider's per-minute limits. Creating a batch spends a request
     * of them: its lines run in the provider's batch queue, under limits of their own, over hours
     * (the tenant's windows are charged the whole batch, at the quota stage).
     */
    static RequestEstimate providerCost(RequestEstimate estimate) {
        return estimate.endpoint() == Endpoint.BATCHES ? estimate.withCost(estimate.model(), 0, 0) : estimate;
    }

    /**
     * What a call costs {@code dispatcher}'s budget: the prompt at that budget's learned ratio
     * (what the provider will count) and max_tokens, never past the minute's cap (what the
     * estimate says fits must stay servable); split where the provider limits input and output apart.
     */
    private Job jobFor(
            ServerWebExchange exchange,
            ProviderDispatcher dispatcher,
            BudgetLimits limits,
            RequestEstimate estimate,
            RequestOptions options,
            long now) {
        double ratio = dispatchers.calibration().ratio(dispatcher.key());
        long charge = Math.min(
                SlidingWindow.cap(limits.tokensPerMinute()),
                TokenCalibration.charge(estimate.promptTokens(), estimate.maxOutputTokens(), ratio));
        Job job = Job.of(
                exchange.getRequest().getId(),
                SluiceAttributes.tenant(exchange).id(),
                SluiceAttributes.tier(exchange).priority(),
                options.batch() ? JobClass.BATCH : JobClass.INTERACTIVE,
                charge,
                now,
                now + options.maxWaitMs());
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        if (!limitIn && !limitOut) return job;
        // The calibrated prompt, and max_tokens reserved as the provider reserves it (settled to what was written).
        return job.withSplit(
                limitIn
                        ? Math.min(
                                SlidingWindow.cap(limits.inputTokensPerMinute()),
                                TokenCalibration.charge(estimate.promptTokens(), 0, ratio))
                        : 0,
                limitOut ? Math.max(0, estimate.maxOutputTokens()) : 0);
    }

    /** What a request needs beyond a budget's whole minute, or null when it fits. */
    record TooLarge(String unit, long requested, long limit) {
        static TooLarge of(RequestEstimate estimate, BudgetLimits limits) {
            if (estimate.totalTokens() > SlidingWindow.cap(limits.tokensPerMinute())) {
                return new TooLarge("tokens", estimate.totalTokens(), limits.tokensPerMinute());
            }
            if (limits.inputTokensPerMinute() > 0
                    && estimate.promptTokens() > SlidingWindow.cap(limits.inputTokensPerMinute())) {
                return new TooLarge("input tokens", estimate.promptTokens(), limits.inputTokensPerMinute());
            }
            if (limits.outputTokensPerMinute() > 0
                    && estimate.maxOutputTokens() > SlidingWindow.cap(limits.outputTokensPerMinute())) {
                return new TooLarge("output tokens", estimate.maxOutputTokens(), limits.outputTokensPerMinute());
            }
            return null;
        }
    }

    /**
     * Where a job waits: the chosen budget with the job as it charges there and its door's word;
     * when none took it, the refusal to tell (the soonest retry), or none at all when every
     * budget of the route is shutting down.
     */
    record Choice(
            ProviderDispatcher.Candidate chosen,
            Job job,
            DoorDecision decision,
            DoorDecision refusal,
            boolean anyOpen) {}

    /**
     * On the dispatch loop: of {@code route}'s open budgets, the first whose door says the job can
     * start within {@code spillMs}, else the one that can start it soonest. A provider stepped
     * around comes back only through a probe, and only a request sent there probes it: one that
     * can start it soon enough takes it, even behind an earlier one.
     */
    static Choice choose(List<ProviderDispatcher.Candidate> route, long maxWaitMs, long spillMs) {
        ProviderDispatcher.Candidate chosen = null;
        Job chosenJob = null;
        DoorDecision chosenDecision = null;
        DoorDecision refusal = null;
        boolean anyOpen = false;
        for (ProviderDispatcher.Candidate c : route) {
            ProviderDispatcher d = c.dispatcher();
            if (d.closing()) continue;
            anyOpen = true;
            // The hop onto this loop is the gateway's time, not the caller's wait: the wait counts from here.
            long now = d.now();
            Job job = c.job().waitingFrom(now, maxWaitMs);
            DoorDecision decision = d.ask(job, maxWaitMs, now);
            if (decision.accepted()
                    && decision.estimatedWaitMs() <= spillMs
                    && d.health().probeDue(now)) {
                return new Choice(c, job, decision, refusal, true);
            }
            if (!decision.accepted()) {
                if (refusal == null || sooner(decision, refusal)) refusal = decision;
                continue;
            }
            if (chosenDecision == null
                    || decision.estimatedWaitMs() < chosenDecision.estimatedWaitMs()
                    || decision.estimatedWaitMs() <= spillMs) {
                chosen = c;
                chosenJob = job;
                chosenDecision = decision;
            }
            if (decision.estimatedWaitMs() <= spillMs) break; // the first on the route that can start it soon enough
        }
        return new Choice(chosen, chosenJob, chosenDecision, refusal, anyOpen);
    }

    /**
     * The budget of {@code route} that counts a refused ask as demand to come: the one that serves
     * the most such calls a minute ({@link Door#callsPerMinute}; the first of equals), where
     * the tenant is served most when it is back. Counted at the route's first, a small primary, the
     * ask held back none of the large secondary's next minute, and whoever came back first took it;
     * counted at every budget, each held room for asks that come back to one of them.
     */
    static ProviderDispatcher.Candidate servesMost(List<ProviderDispatcher.Candidate> route) {
        ProviderDispatcher.Candidate best = null;
        double most = -1;
        for (ProviderDispatcher.Candidate c : route) {
            if (c.dispatcher().closing()) continue;
            double calls = c.dispatcher().callsPerMinute(c.job().tokens());
            if (calls > most) {
                best = c;
                most = calls;
            }
        }
        return best == null ? route.get(0) : best;
    }

    /** The refusal to tell when all refuse: the soonest retry; "never fits" (-1) only when no other. */
    private static boolean sooner(DoorDecision a, DoorDecision b) {
        if (a.retryAfterMs() < 0) return false;
        return b.retryAfterMs() < 0 || a.retryAfterMs() < b.retryAfterMs();
    }

    /**
     * Into the line of one of {@code route}'s budgets, all on one loop: the first whose door
     * says the job can start within {@code spillMs}, else the one that can start it soonest.
     * Busy only when every budget's door refuses (the soonest retry is given). Fails with
     * {@link ProviderFailingException} when the chosen provider starts failing while the job
     * waits: the caller routes it again. The store calls made for it wait each their own timeout.
     */
    static Mono<Lease> enter(List<ProviderDispatcher.Candidate> route, long maxWaitMs, long spillMs, boolean atHead) {
        return enter(route, maxWaitMs, spillMs, atHead, DecisionBudget.UNLIMITED);
    }

    /**
     * {@link #enter(List, long, long, boolean)} for a request with {@code budget} left to wait on
     * the store: the budget's calls made for it (the head's snapshot, its acquire) wait no longer.
     */
    static Mono<Lease> enter(
            List<ProviderDispatcher.Candidate> route,
            long maxWaitMs,
            long spillMs,
            boolean atHead,
            DecisionBudget budget) {
        Line.Ticket ticket = new Line.Ticket(budget);
        Scheduler loop = route.get(0).dispatcher().loop();
        Mono<Lease> placed = Mono.defer(() -> {
            loop.schedule(() -> place(ticket, route, maxWaitMs, spillMs, atHead));
            return ticket.sink.asMono();
        });
        if (!atHead && !seen(route)) placed = seen(route, budget).then(placed); // a replica's first requests only
        return placed.doOnCancel(() -> {
            Lease was = ticket.state.getAndUpdate(s -> s == null ? Line.CANCELLED : s);
            if (was == null) {
                loop.schedule(() -> {
                    ProviderDispatcher owner = ticket.owner;
                    if (owner != null) owner.forget(ticket);
                });
            } else if (was != Line.CANCELLED) {
                ProviderDispatcher owner = ticket.owner; // set before any lease is handed over
                owner.giveBack(was); // dispatched as the client left
            }
        });
    }

    /**
     * Completes once every budget of {@code route} has been read from the store by this replica
     * ({@link ProviderDispatcher#seenOnce}): at once after the first request, one shared store call
     * before it.
     */
    static Mono<Void> seen(List<ProviderDispatcher.Candidate> route, DecisionBudget budget) {
        Mono<Void> all = Mono.empty();
        for (ProviderDispatcher.Candidate c : route)
            if (!c.dispatcher().seen()) all = all.then(c.dispatcher().seenOnce(budget));
        return all;
    }

    /** Whether this replica has read every budget of {@code route} from the store. */
    private static boolean seen(List<ProviderDispatcher.Candidate> route) {
        for (ProviderDispatcher.Candidate c : route) if (!c.dispatcher().seen()) return false;
        return true;
    }

    /** On the loop: choose the budget ({@link #choose}) and queue the job there, or refuse it. */
    private static void place(
            Line.Ticket ticket,
            List<ProviderDispatcher.Candidate> route,
            long maxWaitMs,
            long spillMs,
            boolean atHead) {
        if (ticket.state.get() == Line.CANCELLED) return;
        if (atHead) {
            ProviderDispatcher.Candidate only = route.get(0);
            only.dispatcher().queue(ticket, only.job(), true, Long.MIN_VALUE);
            return;
        }
        Choice choice = choose(route, maxWaitMs, spillMs);
        if (!choice.anyOpen()) {
            Line.fail(ticket, GatewayBusyException.shuttingDown());
            return;
        }
        // Only what went unmet is remembered: demand the door could not take counts ahead of whoever comes next.
        if (choice.chosen() == null) {
            ProviderDispatcher.Candidate counted = servesMost(route);
            counted.dispatcher().asked(counted.job());
            // Expected back at every budget of the route: room any of them frees early is kept for it a while.
            for (ProviderDispatcher.Candidate c : route)
                if (c != counted) c.dispatcher().awaits(c.job());
            Line.fail(ticket, GatewayBusyException.refusedAtTheDoor(choice.refusal(), maxWaitMs));
        } else {
            ProviderDispatcher d = choice.chosen().dispatcher();
            for (DoorDecision.Displaced displaced : choice.decision().displaced()) d.giveWay(displaced);
            ticket.estimatedWaitMs = choice.decision().estimatedWaitMs();
            d.queue(ticket, choice.job(), false, choice.decision().turnAtLeast());
        }
    }
}
