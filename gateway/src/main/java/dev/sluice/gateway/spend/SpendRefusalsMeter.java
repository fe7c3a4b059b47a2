package dev.sluice.gateway.spend;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaRefusals;
import dev.sluice.gateway.quota.SpendUsage;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Counts the requests a spend budget refused ({@code sluice.spend.refusals}, tagged tier and
 * period): the quota's answers mark them ({@link QuotaRefusals#SPEND_REFUSED}), this counts them
 * once as the request ends. Labels are bounded: the tiers and {@code day}/{@code month}.
 */
public final class SpendRefusalsMeter implements GlobalFilter, Ordered {
    public static final String REFUSALS = "sluice.spend.refusals";
    static final List<String> PERIODS = List.of("day", "month");

    private final MeterRegistry meters;

    public SpendRefusalsMeter(MeterRegistry meters) {
        this.meters = meters;
    }

    /** Every tier's series at zero from start: an alert on the first refusal needs the series before it. */
    public void registerMeters(Collection<String> tiers) {
        for (String tier : tiers)
            for (String period : PERIODS) meters.counter(REFUSALS, "tier", tier, "period", period);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        return chain.filter(exchange).doFinally(signal -> {
            SpendUsage refused = QuotaRefusals.SPEND_REFUSED.get(exchange);
            Tier tier = SluiceAttributes.tier(exchange);
            if (refused != null && tier != null)
                meters.counter(REFUSALS, "tier", tier.name(), "period", refused.period())
                        .increment();
        });
    }

    @Override
    public int getOrder() {
        return FilterOrder.SPEND_REFUSALS;
    }
}
