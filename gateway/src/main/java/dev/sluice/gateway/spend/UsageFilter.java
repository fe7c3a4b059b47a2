package dev.sluice.gateway.spend;

import dev.sluice.gateway.api.FilterOrder;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.Tenant;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * Answers {@code GET /v1/sluice/usage} for the tenant whose key it carries: its tier, its token
 * windows and spend budgets now (peeked, charging nothing) and its ledger's totals for today and
 * this month (UTC). After authentication (the surface has already refused other methods with 405),
 * before anything is estimated, charged or sent: it is free and never reaches a provider. The
 * ledger totals lag the last settlements by at most the ledger's flush interval (a second).
 */
public final class UsageFilter implements GlobalFilter, Ordered {
    public static final String PATH = "/v1/sluice/usage";
    private static final JsonMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();

    /** The answer: snake_case, as OpenAI's bodies are. */
    record Usage(
            String object,
            String tenant,
            String tier,
            List<SpendViews.WindowView> windows,
            List<SpendViews.BudgetView> spendBudgets,
            SpendViews.TotalsView today,
            SpendViews.TotalsView thisMonth,
            String ledgerDays) {}

    private final QuotaLimiter limiter;
    private final SpendLedger ledger;
    private final Clock clock;

    public UsageFilter(QuotaLimiter limiter, SpendLedger ledger, Clock clock) {
        this.limiter = limiter;
        this.ledger = ledger;
        this.clock = clock;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        if (!PATH.equals(exchange.getRequest().getURI().getRawPath())) return chain.filter(exchange);
        Tenant tenant = SluiceAttributes.tenant(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        long now = clock.millis();
        LocalDate today = LedgerRange.dayOf(now);
        LedgerRange month = LedgerRange.month(YearMonth.from(today));
        LedgerRange day = new LedgerRange(today, today);
        Mono<QuotaDecision> peek = limiter.peekTenantLevel(tenant, tier, null);
        Mono<List<LedgerDay>> rows =
                ledger.days(tenant.id(), month.from(), today).collectList();
        return Mono.zip(peek, rows)
                .timeout(Duration.ofSeconds(5))
                .flatMap(t -> {
                    QuotaDecision d = t.getT1();
                    Usage body = new Usage(
                            "sluice.usage",
                            tenant.id(),
                            tier.name(),
                            SpendViews.windows(d.windows()),
                            SpendViews.budgets(d.spends(), d.nowMs()),
                            SpendViews.totals(day, t.getT2()),
                            SpendViews.totals(month, t.getT2()),
                            "UTC");
                    return json(exchange.getResponse(), JSON.writeValueAsString(body));
                })
                .onErrorResume(e -> {
                    return OpenAiErrors.unavailable(
                            exchange,
                            "usage_unavailable",
                            "The gateway cannot read your usage right now; retry in a second.");
                });
    }

    private static Mono<Void> json(ServerHttpResponse response, String body) {
        response.setStatusCode(HttpStatus.OK);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().setCacheControl("no-store");
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body.getBytes(StandardCharsets.UTF_8))));
    }

    @Override
    public int getOrder() {
        return FilterOrder.SLUICE_USAGE;
    }
}
