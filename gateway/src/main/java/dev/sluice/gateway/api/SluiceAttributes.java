package dev.sluice.gateway.api;

import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tier.SluiceConfig;
import dev.sluice.gateway.tier.Tier;
import org.springframework.web.server.ServerWebExchange;

/** What the request path's stages leave on the exchange for the stages after them. */
public final class SluiceAttributes {
    public static final String TENANT = "sluice.tenant";
    public static final String TIER = "sluice.tier";
    /** The configuration snapshot this request is served under, taken once at authentication. */
    public static final String CONFIG = "sluice.config";
    /** The request body as the upstream will get it (later stages may rewrite it, e.g. the model). */
    public static final String REQUEST_BODY = "sluice.requestBody";
    /** The {@code RequestEstimate} of this request. */
    public static final String ESTIMATE = "sluice.estimate";
    /** The validated X-Sluice-* headers ({@link RequestOptions}). */
    public static final String OPTIONS = "sluice.options";
    /** The model the upstream is asked for (after a downgrade, the cheaper one). */
    public static final String MODEL = "sluice.model";
    /** The response decorator that records the upstream's usage ({@code UsageRecordingResponse}). */
    public static final String USAGE = "sluice.usage";
    /** The {@code QuotaReservation} charged for this request. */
    public static final String RESERVATION = "sluice.reservation";

    private SluiceAttributes() {
    }

    public static Tenant tenant(ServerWebExchange exchange) {
        return exchange.getAttribute(TENANT);
    }

    public static Tier tier(ServerWebExchange exchange) {
        return exchange.getAttribute(TIER);
    }

    public static SluiceConfig config(ServerWebExchange exchange) {
        return exchange.getAttribute(CONFIG);
    }
}
