package dev.sluice.gateway.quota;

import dev.sluice.gateway.api.OpenAiDuration;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.tenant.Tenant;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The quota's answers when a spend budget refuses, with their texts: 429 {@code budget_exceeded}
 * until the period turns (the caller has set Retry-After to it), or 400 {@code budget_exceeded} for a
 * request that could cost more than the whole budget (waiting would not help).
 */
final class SpendRefusals {
    private SpendRefusals() {}

    /**
     * "the tier's daily spend budget of $1.00", or "the tenant's ..." where its own budget for the
     * period applies, "the key's own ..." or "the organisation's ..." at those levels.
     */
    static String described(Tenant tenant, SpendUsage budget) {
        boolean day = budget.period().equals("day");
        String whose = switch (QuotaScope.levelOf(budget.name()).kind()) {
            case KEY -> "key's own";
            case ORGANISATION -> "organisation's";
            case TENANT -> {
                SpendBudget own = tenant.spend();
                boolean isOwn = own != null && (day ? own.dayMicros() > 0 : own.monthMicros() > 0);
                yield isOwn ? "tenant's" : "tier's";
            }
        };
        return "the " + whose + " " + (day ? "daily" : "monthly") + " spend budget of "
                + Money.usd(budget.limitMicros());
    }

    static Mono<Void> exceeded(ServerWebExchange exchange, Tenant tenant, Tier tier, SpendUsage budget, long retryMs) {
        String message = String.format(
                "Spend budget reached for %s: %s has %s left (used %s), less than this request may cost. "
                        + "It starts again when the %s turns, in %s.",
                QuotaRefusals.whose(exchange, budget.name()),
                described(tenant, budget),
                Money.usd(budget.remainingMicros()),
                Money.usd(budget.usedMicros()),
                budget.period(),
                OpenAiDuration.format(retryMs));
        return OpenAiErrors.write(
                exchange, HttpStatus.TOO_MANY_REQUESTS, "insufficient_quota", "budget_exceeded", message);
    }

    static Mono<Void> neverFits(ServerWebExchange exchange, Tenant tenant, Tier tier, SpendUsage budget) {
        String message = String.format(
                "This request may cost more than %s of %s (priced at the dearest provider of its model, for "
                        + "its prompt and max_tokens), so it can never be served. Lower max_tokens or shorten the input.",
                described(tenant, budget), QuotaRefusals.whose(exchange, budget.name()));
        return OpenAiErrors.write(
                exchange,
                HttpStatus.BAD_REQUEST,
                "invalid_request_error",
                "budget_exceeded",
                message,
                Map.of("limit_usd", Money.plain(budget.limitMicros())));
    }
}
