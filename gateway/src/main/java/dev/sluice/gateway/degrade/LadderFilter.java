package dev.sluice.gateway.degrade;

import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.quota.QuotaFilter;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaRefusals;
import dev.sluice.gateway.quota.QuotaReservation;
import dev.sluice.gateway.quota.SpendPrice;
import dev.sluice.gateway.tenant.Tenant;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The request path's ladder stage: carries out what {@link DegradationLadder} decides for the
 * quota's answer. Pass; downgrade (the body asks for the tier's cheaper model); hold the request
 * on a timer and ask the quota once more; or refuse with 429. An admitted request leaves its
 * charge on the exchange for the settle stage.
 */
public class LadderFilter implements GlobalFilter, Ordered {
    static final String DEGRADED = "X-Sluice-Degraded";
    /** What the ladder did with the request, the heaviest of its steps (a delay then a 429 is a 429). */
    public static final RequestAttribute<Stage> STAGE = new RequestAttribute<>("sluice.ladderStage");

    private final DegradationLadder ladder;
    private final QuotaLimiter limiter;
    private final QuotaRefusals refusals;
    private final RequestRewriter rewriter;
    private final StageCounter stages;
    private final TenantActivity activity;
    /** Requests held on a delay right now, on this replica: bounded by ladder.max-held. */
    private final AtomicInteger held = new AtomicInteger();

    public LadderFilter(
            DegradationLadder ladder,
            QuotaLimiter limiter,
            QuotaRefusals refusals,
            RequestRewriter rewriter,
            StageCounter stages,
            TenantActivity activity,
            MeterRegistry meters) {
        this.ladder = ladder;
        this.limiter = limiter;
        this.refusals = refusals;
        this.rewriter = rewriter;
        this.stages = stages;
        this.activity = activity;
        meters.gauge("sluice.ladder.held", held);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        return climb(exchange, chain, QuotaLimiter.Outcome.ATTRIBUTE.get(exchange), true);
    }

    /** One rung of the ladder for this outcome; a delay comes back here once, with {@code mayDelay} false. */
    private Mono<Void> climb(
            ServerWebExchange exchange, GatewayFilterChain chain, QuotaLimiter.Outcome outcome, boolean mayDelay) {
        Tenant tenant = SluiceAttributes.tenant(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        SluiceConfig config = SluiceAttributes.config(exchange);
        boolean critical = SluiceAttributes.OPTIONS.get(exchange).noDowngrade();
        boolean roomToHold = held.get() < config.ladder().maxHeld();
        // A batch's body names no model to swap (its file's lines name theirs): it is never downgraded.
        String model = estimate.endpoint() == Endpoint.BATCHES ? null : estimate.model();
        LadderDecision step =
                ladder.decide(outcome.decision(), tier, config.ladder(), model, critical, mayDelay && roomToHold);
        // The abuse signal reads every answer, refusals and holds included, not a snapshot as the minute ends.
        activity.quotaAnswered(tenant.id(), estimate.totalTokens(), outcome.decision(), step.stage() == Stage.DELAYED);
        stages.count(tenant.id(), tier.name(), step.stage());
        Stage before = STAGE.get(exchange);
        if (before == null || heavier(step.stage(), before)) STAGE.set(exchange, step.stage());
        switch (step.stage()) {
            case REJECTED -> {
                return refusals.rejected(exchange, outcome.decision());
            }
            case DELAYED -> {
                degraded(exchange, "delayed; ms=" + step.delayMs());
                held.incrementAndGet();
                // Held on a timer, not a thread; a client that leaves cancels the timer and frees the place.
                // The second ask waits on the store only for what the first left of the request's budget
                // (the hold itself is not store time).
                return Mono.delay(Duration.ofMillis(step.delayMs()))
                        .then(Mono.defer(() -> limiter.acquire(
                                QuotaFilter.scope(limiter, exchange),
                                tier,
                                estimate.totalTokens(),
                                SpendPrice.reserved(config, estimate),
                                SluiceAttributes.decisionBudget(exchange))))
                        .doFinally(signal -> held.decrementAndGet())
                        .flatMap(retry -> refusals.outright(exchange, retry)
                                .orElseGet(() -> climb(exchange, chain, retry, false)));
            }
            case DOWNGRADED -> {
                SluiceAttributes.REQUEST_BODY.set(
                        exchange, rewriter.withModel(SluiceAttributes.REQUEST_BODY.get(exchange), step.model()));
                SluiceAttributes.MODEL.set(exchange, step.model());
                degraded(exchange, "model-downgraded; from=" + estimate.model() + "; to=" + step.model());
                return admitted(exchange, chain, outcome.reservation());
            }
            default -> {
                return admitted(exchange, chain, outcome.reservation());
            }
        }
    }

    /** The ladder's stages by weight: passed, delayed, downgraded, rejected. */
    public static boolean heavier(Stage a, Stage b) {
        return weight(a) > weight(b);
    }

    private static int weight(Stage s) {
        return switch (s) {
            case PASSED -> 0;
            case DELAYED -> 1;
            case DOWNGRADED -> 2;
            default -> 3;
        };
    }

    private static Mono<Void> admitted(
            ServerWebExchange exchange, GatewayFilterChain chain, QuotaReservation reservation) {
        QuotaReservation.ATTRIBUTE.set(exchange, reservation);
        return chain.filter(exchange);
    }

    /** X-Sluice-Degraded lists every stage that acted, in order (a request can be delayed, then downgraded). */
    private static void degraded(ServerWebExchange exchange, String what) {
        HttpHeaders h = exchange.getResponse().getHeaders();
        String before = h.getFirst(DEGRADED);
        h.set(DEGRADED, before == null ? what : before + ", " + what);
    }

    @Override
    public int getOrder() {
        return FilterOrder.LADDER;
    }
}
