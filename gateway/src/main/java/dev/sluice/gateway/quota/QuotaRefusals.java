package dev.sluice.gateway.quota;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.api.OpenAiDuration;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestAttribute;
import dev.sluice.gateway.api.SluiceAttributes;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The quota's answers to a tenant, with their texts: the store could not be asked (503), the
 * request can never fit (400), or the ladder's last rung (429 with the exact Retry-After). The
 * reserve stage and the ladder (after a delay, it asks the quota again) answer with these.
 */
public final class QuotaRefusals {
    /** Set when a spend budget refused the request (429 or 400 budget_exceeded): the budget, for its meter. */
    public static final RequestAttribute<SpendUsage> SPEND_REFUSED = new RequestAttribute<>("sluice.spendRefused");

    private final StageCounter stages;
    private final EnforcementAccuracy accuracy;

    public QuotaRefusals(StageCounter stages, EnforcementAccuracy accuracy) {
        this.stages = stages;
        this.accuracy = accuracy;
    }

    /**
     * The answers no rung of the ladder changes, or empty when the ladder decides. Refusals carry
     * the tenant's headers now; an admitted request gets them just before its answer commits, so
     * the provider's own x-ratelimit-* stay readable until then (dispatch reads them).
     */
    public Optional<Mono<Void>> outright(ServerWebExchange exchange, QuotaLimiter.Outcome outcome) {
        Tenant tenant = SluiceAttributes.tenant(exchange);
        Tier tier = SluiceAttributes.tier(exchange);
        if (outcome.storeUnavailable()) {
            stages.count(tenant.id(), tier.name(), Stage.STORE_UNAVAILABLE);
            return Optional.of(OpenAiErrors.unavailable(
                    exchange,
                    "quota_store_unavailable",
                    "The gateway cannot check your quota right now; retry in a second."));
        }
        if (!outcome.admitted()) RateLimitHeaders.apply(exchange.getResponse().getHeaders(), outcome.decision());
        if (outcome.neverFits()) {
            stages.count(tenant.id(), tier.name(), Stage.TOO_LARGE);
            SpendUsage budget = outcome.decision().blockingSpend();
            if (budget != null) SPEND_REFUSED.set(exchange, budget);
            return Optional.of(
                    budget != null
                            ? SpendRefusals.neverFits(exchange, tenant, tier, budget)
                            : tooLarge(exchange, tier, RequestEstimate.ATTRIBUTE.get(exchange), outcome.decision()));
        }
        return Optional.empty();
    }

    /** 429 rate_limit_exceeded, with when this request's tokens will fit (not when a window resets). */
    public Mono<Void> rejected(ServerWebExchange exchange, QuotaDecision d) {
        Tier tier = SluiceAttributes.tier(exchange);
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        long ms = d.retryAfterMs();
        HttpHeaders h = exchange.getResponse().getHeaders();
        h.set(HttpHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.ceilSeconds(ms)));
        h.set("retry-after-ms", Long.toString(ms));
        SpendUsage budget = d.blockingSpend();
        if (budget != null) SPEND_REFUSED.set(exchange, budget);
        if (budget != null)
            return SpendRefusals.exceeded(exchange, SluiceAttributes.tenant(exchange), tier, budget, ms);
        WindowUsage blocking = blocking(d);
        audit(exchange, blocking, estimate.totalTokens());
        String message = blocking.limitRequests() == Long.MAX_VALUE
                ? String.format(
                        "Rate limit reached for %s on %s: limit %d tokens, used %d tokens, "
                                + "this request needs %d tokens. Please try again in %s.",
                        whose(exchange, blocking.name()),
                        described(blocking.name()),
                        blocking.limitTokens(),
                        blocking.usedTokens(),
                        estimate.totalTokens(),
                        OpenAiDuration.format(ms))
                : String.format(
                        "Rate limit reached for %s on %s: limit %d tokens and %d requests, "
                                + "used %d tokens and %d requests, this request needs %d tokens. Please try again in %s.",
                        whose(exchange, blocking.name()),
                        described(blocking.name()),
                        blocking.limitTokens(),
                        blocking.limitRequests(),
                        blocking.usedTokens(),
                        blocking.usedRequests(),
                        estimate.totalTokens(),
                        OpenAiDuration.format(ms));
        return OpenAiErrors.write(exchange, HttpStatus.TOO_MANY_REQUESTS, "tokens", "rate_limit_exceeded", message);
    }

    /** A refusal for tokens is judged once the calls in its window settle (a request count is charged exactly). */
    private void audit(ServerWebExchange exchange, WindowUsage blocking, long needed) {
        long room = Math.max(0, blocking.limitTokens() - blocking.usedTokens());
        if (needed <= room) return; // refused for its request count, not its tokens
        // Judged against the tenant's own calls: a key's or an organisation's window is not (QuotaScope).
        if (QuotaScope.levelOf(blocking.name()).kind() != QuotaScope.Kind.TENANT) return;
        accuracy.refused(
                SluiceAttributes.tenant(exchange).id(),
                SluiceAttributes.tier(exchange).name(),
                needed - room,
                blocking.seconds() * 1000);
    }

    private static Mono<Void> tooLarge(
            ServerWebExchange exchange, Tier tier, RequestEstimate estimate, QuotaDecision d) {
        WindowUsage w = blocking(d);
        String message = String.format(
                "This request needs %d tokens (prompt %d + up to %d output) but %s admits at most "
                        + "%d tokens per %s, so it can never be served. Lower max_tokens or shorten the input.",
                estimate.totalTokens(),
                estimate.promptTokens(),
                estimate.maxOutputTokens(),
                whose(exchange, w.name()),
                w.limitTokens(),
                described(w.name()));
        return OpenAiErrors.tooManyTokens(
                exchange, message, Map.of("limit_tokens", w.limitTokens(), "requested_tokens", estimate.totalTokens()));
    }

    /**
     * Which level a window or budget belongs to, as the caller reads it: "tier 'free'", "key
     * key_0123456789ab" or "organisation 'acme'" ({@link QuotaScope}'s names).
     */
    static String whose(ServerWebExchange exchange, String name) {
        QuotaScope.Level level = QuotaScope.levelOf(name);
        return switch (level.kind()) {
            case TENANT -> "tier '" + SluiceAttributes.tier(exchange).name() + "'";
            case KEY -> "key " + level.id();
            case ORGANISATION -> {
                Organisation o = SluiceAttributes.ORGANISATION.get(exchange);
                yield "organisation '" + (o == null ? "?" : o.id()) + "'";
            }
        };
    }

    /**
     * A window as the tenant reads it: "the minute window", "its window for model 'gpt-4o'
     * (model-limits, 60 s)", "its tokens-per-minute cap" (a key's own).
     */
    static String described(String window) {
        QuotaScope.Level level = QuotaScope.levelOf(window);
        if (level.kind() == QuotaScope.Kind.KEY) return "its own tokens-per-minute cap";
        String base = level.base();
        String model = level.kind() == QuotaScope.Kind.TENANT ? TierModels.modelOf(base) : null;
        return model == null ? "the " + base + " window" : "its window for model '" + model + "' (model-limits, 60 s)";
    }

    private static WindowUsage blocking(QuotaDecision d) {
        return d.windows().stream()
                .filter(w -> w.name().equals(d.blocking()))
                .findFirst()
                .orElse(d.windows().get(0));
    }
}
