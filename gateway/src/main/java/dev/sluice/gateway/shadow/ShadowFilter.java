package dev.sluice.gateway.shadow;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.degrade.LadderFilter;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.usage.SettleListener;
import java.util.function.Supplier;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The shadow stage, between the quota's first answer and the ladder: while a draft is in shadow,
 * each request the live quota answered is also decided against the draft ({@link ShadowEvaluator}),
 * detached, so the live request neither waits for it nor sees it. When both are known, the pair of
 * outcomes goes to the {@link ShadowRecorder}; the draft's charge is settled from the live usage
 * ({@link ShadowCharge}). Requests the live path refuses before the quota (authentication, endpoint,
 * model access, too large) are not evaluated, nor are any while the store is down.
 */
public final class ShadowFilter implements GlobalFilter, Ordered {
    /** Looked up at the first request, not at construction: the drafts' bean needs the tiers reloader, which needs this filter's chain. */
    private final Supplier<ShadowTiers> lookup;

    private volatile ShadowTiers tiers;
    private final ShadowEvaluator evaluator;
    private final ShadowRecorder recorder;
    private final StoreState state;

    public ShadowFilter(
            Supplier<ShadowTiers> tiers, ShadowEvaluator evaluator, ShadowRecorder recorder, StoreState state) {
        this.lookup = tiers;
        this.evaluator = evaluator;
        this.recorder = recorder;
        this.state = state;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        ShadowTiers t = tiers;
        if (t == null) tiers = t = lookup.get();
        ShadowTiers.InShadow now = t.inShadow();
        SluiceConfig draft = now.draft();
        if (draft == null || !state.up() || QuotaLimiter.Outcome.ATTRIBUTE.get(exchange) == null)
            return chain.filter(exchange);
        long version = now.version();
        Tenant tenant = SluiceAttributes.tenant(exchange);
        String tier = SluiceAttributes.tier(exchange).name();
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        String model = estimate.endpoint() == Endpoint.BATCHES ? null : estimate.model();
        boolean critical = SluiceAttributes.OPTIONS.get(exchange).noDowngrade();
        ShadowCharge charge =
                new ShadowCharge((live, drafted) -> recorder.record(tenant.id(), tier, version, live, drafted));
        SettleListener.ATTRIBUTE.set(exchange, charge);
        evaluator
                .decide(tenant, estimate, model, critical, draft, version)
                .subscribe(charge::drafted, e -> charge.drafted(ShadowEvaluator.UNKNOWN));
        return chain.filter(exchange).doFinally(signal -> charge.lived(LadderFilter.STAGE.get(exchange)));
    }

    @Override
    public int getOrder() {
        return FilterOrder.SHADOW;
    }

    /** The pair of outcomes, when both are known. */
    interface Outcomes {
        void both(Stage live, Stage draft);
    }
}
