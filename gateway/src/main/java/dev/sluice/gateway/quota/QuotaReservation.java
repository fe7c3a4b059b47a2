package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.config.WindowLimit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;

/**
 * Tokens charged up front for one request, to be settled exactly once when the real usage
 * is known: by the response's usage, by what a cut stream really produced, or by a refund
 * when the request never reached the provider. A second settle is a no-op, so the paths
 * that race to settle (completion, cancel, error) cannot charge twice or leak.
 */
public final class QuotaReservation {
    /** Where the ladder leaves the charge of an admitted request, for the settle stage. */
    public static final RequestAttribute<QuotaReservation> ATTRIBUTE = new RequestAttribute<>("sluice.reservation");

    private final QuotaStore store;
    private final String tenantId;
    private final List<WindowLimit> windows;
    private final QuotaDecision decision;
    private final long estimatedTokens;
    private final AtomicBoolean settled = new AtomicBoolean();

    QuotaReservation(
            QuotaStore store,
            String tenantId,
            List<WindowLimit> windows,
            QuotaDecision decision,
            long estimatedTokens) {
        this.store = store;
        this.tenantId = tenantId;
        this.windows = windows;
        this.decision = decision;
        this.estimatedTokens = estimatedTokens;
    }

    public QuotaDecision decision() {
        return decision;
    }

    public long estimatedTokens() {
        return estimatedTokens;
    }

    public boolean isSettled() {
        return settled.get();
    }

    /** The request was served: charge {@code actualTokens} instead of the estimate. */
    public Mono<Void> settle(long actualTokens) {
        if (!settled.compareAndSet(false, true)) return Mono.empty();
        return store.adjust(tenantId, windows, decision.nowMs(), actualTokens - estimatedTokens, 0);
    }

    /** The request never reached the provider: give back its tokens and the request itself. */
    public Mono<Void> refundAll() {
        if (!settled.compareAndSet(false, true)) return Mono.empty();
        return store.adjust(tenantId, windows, decision.nowMs(), -estimatedTokens, -1);
    }
}
