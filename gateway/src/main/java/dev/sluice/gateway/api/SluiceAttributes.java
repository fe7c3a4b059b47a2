package dev.sluice.gateway.api;

import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import org.springframework.web.server.ServerWebExchange;

/**
 * What the request path's stages leave on the exchange for the stages after them. The request's
 * identity and options are here; the rest is declared beside its type, so that this class needs
 * none of the stages:
 * <ul>
 *   <li>{@code MatchedOperation.ATTRIBUTE}: the operation the request is, its family, kind and
 *       id segments (surface, before authentication);</li>
 *   <li>{@code RequestEstimate.ATTRIBUTE}: what the request may cost (estimate);</li>
 *   <li>{@code QuotaLimiter.Outcome.ATTRIBUTE}: the quota's first answer (reserve, read by the ladder);</li>
 *   <li>{@code QuotaReservation.ATTRIBUTE}: the charge to settle (ladder, read by settle);</li>
 *   <li>{@code LadderFilter.STAGE}: what the ladder did, its heaviest step (ladder, read by the shadow);</li>
 *   <li>{@code SettleListener.ATTRIBUTE}: a charge that follows the settlement (the shadow's, told by settle);</li>
 *   <li>{@code UsageRecordingResponse.ATTRIBUTE}: the answer's usage as it passes (settle, read by dispatch).</li>
 * </ul>
 */
public final class SluiceAttributes {
    public static final RequestAttribute<Tenant> TENANT = new RequestAttribute<>("sluice.tenant");
    public static final RequestAttribute<Tier> TIER = new RequestAttribute<>("sluice.tier");
    /** The tenant's organisation, when it is in one (absent otherwise), read at authentication. */
    public static final RequestAttribute<Organisation> ORGANISATION = new RequestAttribute<>("sluice.organisation");
    /** The presented key's record (its own caps), when the store knows it. */
    public static final RequestAttribute<TenantKey> KEY = new RequestAttribute<>("sluice.key");
    /** The configuration snapshot this request is served under, taken once at authentication. */
    public static final RequestAttribute<SluiceConfig> CONFIG = new RequestAttribute<>("sluice.config");
    /** The request body as the upstream will get it (later stages may rewrite it, e.g. the model). */
    public static final RequestAttribute<byte[]> REQUEST_BODY = new RequestAttribute<>("sluice.requestBody");
    /** The validated X-Sluice-* headers. */
    public static final RequestAttribute<RequestOptions> OPTIONS = new RequestAttribute<>("sluice.options");
    /** The model the upstream is asked for (after a downgrade, the cheaper one). */
    public static final RequestAttribute<String> MODEL = new RequestAttribute<>("sluice.model");
    /** The provider the call went to (its last attempt's), set by the dispatch stage. */
    public static final RequestAttribute<String> PROVIDER = new RequestAttribute<>("sluice.provider");
    /**
     * Set when the gateway answered without sending the request to the provider (busy, larger than
     * the provider admits): the settle stage gives the whole charge back before that answer goes out.
     */
    public static final RequestAttribute<Boolean> NEVER_SENT = new RequestAttribute<>("sluice.neverSent");
    /** How long the request may still wait on the shared store before it is decided, set as it arrives (authentication). */
    public static final RequestAttribute<DecisionBudget> DECISION_BUDGET =
            new RequestAttribute<>("sluice.decisionBudget");

    private SluiceAttributes() {}

    public static Tenant tenant(ServerWebExchange exchange) {
        return TENANT.get(exchange);
    }

    public static Tier tier(ServerWebExchange exchange) {
        return TIER.get(exchange);
    }

    public static SluiceConfig config(ServerWebExchange exchange) {
        return CONFIG.get(exchange);
    }

    /** The request's store budget; none (each call its own timeout) on an exchange no authentication saw. */
    public static DecisionBudget decisionBudget(ServerWebExchange exchange) {
        DecisionBudget budget = DECISION_BUDGET.get(exchange);
        return budget != null ? budget : DecisionBudget.UNLIMITED;
    }

    public static boolean neverSent(ServerWebExchange exchange) {
        return Boolean.TRUE.equals(NEVER_SENT.get(exchange));
    }
}
