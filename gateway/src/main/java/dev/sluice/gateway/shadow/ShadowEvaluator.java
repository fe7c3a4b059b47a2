package dev.sluice.gateway.shadow;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.degrade.DegradationLadder;
import dev.sluice.gateway.degrade.LadderDecision;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.quota.SpendPrice;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.tenant.Tenant;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Decides one request against the draft in shadow as the live path would (model access, the
 * quota's windows and spend budgets, the ladder's downgrade, delay and second ask, 429), charging
 * shadow windows of its own: the tenant's windows under the draft live under another owner
 * ({@link #owner}), so nothing the draft charges can touch a live window. Its limiter is
 * {@link QuotaLimiter#apart}: a shadow call that fails or times out never marks the store down for
 * live requests, never falls back onto their local windows, and spends no live request's budget.
 */
public final class ShadowEvaluator {
    /** What the draft did with a request, and the charge it kept (null when it admitted nothing). */
    public record Verdict(Stage stage, QuotaReservation reservation) {
        static Verdict of(Stage stage) {
            return new Verdict(stage, null);
        }
    }

    /** The draft could not be asked (the store did not answer): the request is left out of the what-if. */
    public static final Verdict UNKNOWN = new Verdict(null, null);

    private final QuotaLimiter limiter;
    private final DegradationLadder ladder;
    private final Scheduler timer;

    public ShadowEvaluator(QuotaLimiter limiter, DegradationLadder ladder, Scheduler timer) {
        this.limiter = limiter;
        this.ladder = ladder;
        this.timer = timer;
    }

    /**
     * The owner of a tenant's shadow windows for draft {@code version}: '~' is never in a tenant id
     * (lower-case letters, digits, '.', '_', '-'), so no live owner can collide with one, and a new
     * draft starts on windows of its own.
     */
    public static String owner(long version, String tenantId) {
        return "shadow~" + version + "~" + tenantId;
    }

    public Mono<Verdict> decide(
            Tenant tenant, RequestEstimate estimate, String model, boolean critical, SluiceConfig draft, long version) {
        Tier tier = draft.tier(tenant.tierName()).orElse(null);
        // Under the draft the tenant's tier is gone: authentication would refuse every request.
        if (tier == null || !tier.models().allows(model)) return Mono.just(Verdict.of(Stage.REJECTED));
        String owner = owner(version, tenant.id());
        long cost = SpendPrice.reserved(draft, estimate);
        Mono<QuotaLimiter.Outcome> ask = Mono.defer(() -> limiter.acquire(
                owner, tier, tenant.spendUnder(tier), model, estimate.totalTokens(), cost, DecisionBudget.UNLIMITED));
        return ask.flatMap(first -> climb(first, tier, draft, model, critical, true, ask))
                .onErrorResume(e -> Mono.just(UNKNOWN));
    }

    private Mono<Verdict> climb(
            QuotaLimiter.Outcome outcome,
            Tier tier,
            SluiceConfig draft,
            String model,
            boolean critical,
            boolean mayDelay,
            Mono<QuotaLimiter.Outcome> ask) {
        if (outcome.storeUnavailable()) return Mono.just(UNKNOWN);
        if (outcome.neverFits()) return Mono.just(Verdict.of(Stage.REJECTED)); // the live path's 400: nothing served
        LadderDecision step = ladder.decide(outcome.decision(), tier, draft.ladder(), model, critical, mayDelay);
        return switch (step.stage()) {
            case DELAYED ->
                Mono.delay(Duration.ofMillis(step.delayMs()), timer)
                        .then(ask)
                        .flatMap(again -> climb(again, tier, draft, model, critical, false, ask))
                        // Held, then admitted: the request was delayed; held, then refused: it was refused.
                        .map(v -> v.stage() == Stage.PASSED ? new Verdict(Stage.DELAYED, v.reservation()) : v);
            case PASSED, DOWNGRADED -> Mono.just(new Verdict(step.stage(), outcome.reservation()));
            default -> Mono.just(Verdict.of(Stage.REJECTED));
        };
    }
}
