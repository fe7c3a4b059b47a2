package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.WindowLimit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * Tokens (and, where the tier has spend budgets, micro-dollars) charged up front for one request, to be settled exactly once when the real usage
 * is known: by the response's usage, by what a cut stream really produced, or by a refund
 * when the request never reached the provider. A second settle is a no-op, so the paths
 * that race to settle (completion, cancel, error) cannot charge twice or leak.
 */
public final class QuotaReservation {
    /** Where the ladder leaves the charge of an admitted request, for the settle stage. */
    public static final RequestAttribute<QuotaReservation> ATTRIBUTE = new RequestAttribute<>("sluice.reservation");

    private final QuotaStore store;
    /** Whose windows were charged: the tenant, or its organisation ({@link QuotaScope#owner}). */
    private final String owner;

    private final List<WindowLimit> windows;
    private final QuotaDecision decision;
    private final long estimatedTokens;
    private final List<SpendLimit> spends;
    private final long estimatedCostMicros;
    private final AtomicBoolean settled = new AtomicBoolean();

    QuotaReservation(
            QuotaStore store, String owner, List<WindowLimit> windows, QuotaDecision decision, long estimatedTokens) {
        this(store, owner, windows, List.of(), decision, estimatedTokens, 0);
    }

    /** @param spends the budget periods {@code estimatedCostMicros} was charged in, settled in those same periods */
    QuotaReservation(
            QuotaStore store,
            String owner,
            List<WindowLimit> windows,
            List<SpendLimit> spends,
            QuotaDecision decision,
            long estimatedTokens,
            long estimatedCostMicros) {
        this.store = store;
        this.owner = owner;
        this.windows = windows;
        this.spends = List.copyOf(spends);
        this.decision = decision;
        this.estimatedTokens = estimatedTokens;
        this.estimatedCostMicros = estimatedCostMicros;
    }

    public QuotaDecision decision() {
        return decision;
    }

    public long estimatedTokens() {
        return estimatedTokens;
    }

    /** What was reserved of the spend budgets, in micro-dollars (0 when the tier has none). */
    public long estimatedCostMicros() {
        return estimatedCostMicros;
    }

    /** Whether any spend budget was charged: the settlement must price the usage. */
    public boolean chargesSpend() {
        return !spends.isEmpty();
    }

    public boolean isSettled() {
        return settled.get();
    }

    /** The request was served: charge {@code actualTokens} instead of the estimate (its cost as reserved). */
    public Mono<Void> settle(long actualTokens) {
        return settle(actualTokens, estimatedCostMicros);
    }

    /**
     * The request was served: charge {@code actualTokens} and {@code actualCostMicros} (its usage at
     * the serving provider's price) instead of the estimates, in the periods they were charged in.
     */
    public Mono<Void> settle(long actualTokens, long actualCostMicros) {
        return correct(actualTokens - estimatedTokens, 0, Money.add(actualCostMicros, -estimatedCostMicros));
    }

    /** The request never reached the provider: give back its tokens, its cost and the request itself. */
    public Mono<Void> refundAll() {
        return correct(-estimatedTokens, -1, -estimatedCostMicros);
    }

    /** The one correction a reservation makes, in the windows and periods it was charged in (cost only where charged). */
    private Mono<Void> correct(long deltaTokens, long deltaRequests, long deltaMicros) {
        if (!settled.compareAndSet(false, true)) return Mono.empty();
        return store.adjust(
                owner,
                windows,
                spends,
                decision.nowMs(),
                deltaTokens,
                deltaRequests,
                spends.isEmpty() ? 0 : deltaMicros);
    }
}
