package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.support.Deadline;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Charges a request's estimated tokens against its tenant's windows. When the shared store
 * does not answer within {@code storeTimeout}, the tier's named policy decides at once:
 * fail open onto this replica's own in-memory windows, or fail closed ({@link QuotaFallback}). It
 * never waits out a connect timeout.
 */
public final class QuotaLimiter {
    /** The result of asking: a reservation (admitted), a refusal with its decision, or no answer. */
    public record Outcome(QuotaReservation reservation, QuotaDecision decision, boolean storeUnavailable) {
        /** Where the reserve stage leaves its answer, admitted or refused, for the ladder. */
        public static final RequestAttribute<Outcome> ATTRIBUTE = new RequestAttribute<>("sluice.quotaOutcome");

        public boolean admitted() {
            return reservation != null;
        }

        /** Larger than the tier could ever admit in some window: no Retry-After would help. */
        public boolean neverFits() {
            return decision != null && decision.retryAfterMs() < 0;
        }
    }

    private final QuotaStore store;
    /** What a tier does when the store does not answer: fail open onto local windows, or closed. */
    private final QuotaFallback fallback;

    private final Clock clock;
    private final Clock periods;
    private final Duration storeTimeout;
    private final StoreState state;

    /** @param localFallback used by fail-open tiers when {@code store} fails; null when {@code store} is already local */
    public QuotaLimiter(QuotaStore store, QuotaStore localFallback, Duration storeTimeout, MeterRegistry meters) {
        this(
                store,
                localFallback,
                storeTimeout,
                meters,
                StoreState.alwaysUp(),
                null,
                Clock.systemUTC(),
                Clock.systemUTC());
    }

    /**
     * @param state      shared with the other stages: while it says down, the store is not asked at all
     * @param freshLocal when Redis answers again, what the local windows spent is handed to it and
     *                   the next outage starts on fresh ones from here; null: no hand-over
     * @param clock      the shared store's time, for the hand-over
     * @param periods    the clock the spend budgets' calendar periods are read on (the quota's: a test's
     *                   fake one)
     */
    public QuotaLimiter(
            QuotaStore store,
            QuotaStore localFallback,
            Duration storeTimeout,
            MeterRegistry meters,
            StoreState state,
            Supplier<QuotaStore> freshLocal,
            Clock clock,
            Clock periods) {
        this.periods = periods;
        this.store = store;
        this.storeTimeout = storeTimeout;
        this.state = state;
        this.clock = clock;
        this.fallback = new QuotaFallback(store, localFallback, freshLocal, state, storeTimeout, meters, clock);
    }

    /**
     * A limiter on the same store for work that must not touch the live path's shared state (the
     * shadow evaluation of a draft): its failures never mark the store down, it has no local
     * fallback (a failure is an unavailable answer), and its meters are its own.
     */
    public QuotaLimiter apart() {
        return new QuotaLimiter(
                store, null, storeTimeout, new SimpleMeterRegistry(), StoreState.alwaysUp(), null, clock, periods);
    }

    public Mono<Outcome> acquire(String tenantId, Tier tier, long tokens) {
        return acquire(tenantId, tier, tokens, DecisionBudget.UNLIMITED);
    }

    /**
     * The same for a request with {@code budget} left to wait on the store: the call waits at most
     * that (or the store timeout, if less), and a spent budget goes to the tier's policy at once.
     */
    public Mono<Outcome> acquire(String tenantId, Tier tier, long tokens, DecisionBudget budget) {
        return acquire(tenantId, tier, null, tokens, budget);
    }

    /**
     * The same for a request naming {@code model} (null: none): the tier's windows and, when the
     * tier keeps one for the model ({@code model-limits}), the model's own window, all in the one
     * atomic step; the reservation settles in the same windows.
     */
    public Mono<Outcome> acquire(String tenantId, Tier tier, String model, long tokens, DecisionBudget budget) {
        return acquire(tenantId, tier, model, tokens, 0, budget);
    }

    /**
     * The same with the request's estimated {@code costMicros} charged to the tier's spend budgets
     * (their periods now, on the quota's clock) in that same atomic step: one round trip still.
     */
    public Mono<Outcome> acquire(
            String tenantId, Tier tier, String model, long tokens, long costMicros, DecisionBudget budget) {
        return acquire(tenantId, tier, tier.spend(), model, tokens, costMicros, budget);
    }

    /** The same charged to {@code spend} (the tenant's own budgets over its tier's: {@code Tenant.spendUnder}). */
    public Mono<Outcome> acquire(
            String tenantId,
            Tier tier,
            SpendBudget spend,
            String model,
            long tokens,
            long costMicros,
            DecisionBudget budget) {
        return acquire(
                QuotaScope.plain(tenantId, tier.windowsFor(model), SpendLimit.of(spend, periods.millis())),
                tier,
                tokens,
                costMicros,
                budget);
    }

    /**
     * Every level of a request's {@code scope} (tenant, key, organisation) checked and charged in the
     * one atomic step: all or none; the reservation settles and refunds every level.
     */
    public Mono<Outcome> acquire(QuotaScope scope, Tier tier, long tokens, long costMicros, DecisionBudget budget) {
        Admission admission = new Admission(scope, tokens, costMicros);
        if (!state.up()) return fallback(QuotaFallback.DOWN, tier, admission); // no second timeout per request
        if (budget.spent()) return fallback(QuotaFallback.SPENT, tier, admission);
        return budget.within(admission.on(store), storeTimeout, state)
                .map(d -> outcome(store, admission, d))
                .onErrorResume(e -> {
                    // A call the request's budget cut short says nothing about Redis: only this request falls back.
                    if (DecisionBudget.marksDown(e)) state.failed(e);
                    return fallback(e, tier, admission);
                });
    }

    /** The scope of a request: its tenant, organisation (null: none) and key's levels, spend periods now on the quota's clock. */
    public QuotaScope scope(Tenant tenant, Organisation organisation, TenantKey key, Tier tier, String model) {
        return QuotaScope.of(tenant, organisation, key, tier, model, periods.millis());
    }

    /** The periods' clock's time now (what {@link #scope} builds the spend periods for). */
    public long periodsNowMs() {
        return periods.millis();
    }

    /** One admission: the scope's windows and budget periods, the tokens and the cost, one request. */
    private record Admission(QuotaScope scope, long tokens, long costMicros) {
        Mono<QuotaDecision> on(QuotaStore where) {
            return where.acquire(
                    scope.owner(), scope.windows(), scope.spends(), new QuotaStore.Charge(tokens, 1, costMicros));
        }
    }

    /** The windows' state without charging (for headers on refusals made elsewhere, usage series). */
    public Mono<List<WindowUsage>> peek(String tenantId, Tier tier) {
        return Deadline.within(store.peek(tenantId, tier.windows()), storeTimeout);
    }

    /**
     * A tenant's tier windows where they live (under its organisation when it is in one), charging
     * nothing, named as the tier names them: what the abuse sampler measures.
     */
    public Mono<List<WindowUsage>> peekTenant(Tenant tenant, Tier tier) {
        QuotaScope scope = QuotaScope.tenantWindows(tenant, tier);
        return Deadline.within(store.peek(scope.owner(), scope.windows()), storeTimeout)
                .map(usage -> usage.stream()
                        .map(u -> u.withName(QuotaScope.baseName(u.name())))
                        .toList());
    }

    /**
     * A tenant's own windows for {@code model} and its spend budgets now, where they live, charging
     * nothing, named as the tier names them: what the tenant's usage and spend views show.
     */
    public Mono<QuotaDecision> peekTenantLevel(Tenant tenant, Tier tier, String model) {
        return peek(QuotaScope.tenantLevel(tenant, tier, model, periods.millis()))
                .map(d -> new QuotaDecision(
                        d.admitted(),
                        d.nowMs(),
                        d.retryAfterMs(),
                        d.blocking() == null ? null : QuotaScope.baseName(d.blocking()),
                        d.windows().stream()
                                .map(u -> u.withName(QuotaScope.baseName(u.name())))
                                .toList(),
                        d.spends().stream()
                                .map(s -> s.withName(QuotaScope.baseName(s.name())))
                                .toList()));
    }

    /** Every window and spend period of {@code scope}, charging nothing. */
    public Mono<QuotaDecision> peek(QuotaScope scope) {
        return Deadline.within(store.peek(scope.owner(), scope.windows(), scope.spends()), storeTimeout);
    }

    /** The windows of {@code model} and the tier's spend budgets for their periods now, charging nothing. */
    public Mono<QuotaDecision> peekAll(String tenantId, Tier tier, String model) {
        return peekAll(tenantId, tier, tier.spend(), model);
    }

    /** The same with {@code spend}'s budgets (a tenant's own). */
    public Mono<QuotaDecision> peekAll(String tenantId, Tier tier, SpendBudget spend, String model) {
        return Deadline.within(
                store.peek(tenantId, tier.windowsFor(model), SpendLimit.of(spend, periods.millis())), storeTimeout);
    }

    /** The same with the tier's window for {@code model}, when it keeps one, last. */
    public Mono<List<WindowUsage>> peek(String tenantId, Tier tier, String model) {
        return Deadline.within(store.peek(tenantId, tier.windowsFor(model)), storeTimeout);
    }

    private Outcome outcome(QuotaStore where, Admission c, QuotaDecision d) {
        QuotaScope s = c.scope();
        return d.admitted()
                ? new Outcome(
                        new QuotaReservation(where, s.owner(), s.windows(), s.spends(), d, c.tokens(), c.costMicros()),
                        d,
                        false)
                : new Outcome(null, d, false);
    }

    /**
     * Every tier's {@code sluice.store.fallback} series at zero, from start: an alert on the first
     * fallback needs the series before it (a counter born at 1 shows no increase).
     */
    public void registerMeters(Collection<Tier> tiers) {
        fallback.registerMeters(tiers);
    }

    private Mono<Outcome> fallback(Throwable error, Tier tier, Admission admission) {
        QuotaStore local = fallback.localFor(error, tier, admission.scope());
        if (local == null) return Mono.just(new Outcome(null, null, true));
        return admission.on(local).map(d -> outcome(local, admission, d));
    }
}
