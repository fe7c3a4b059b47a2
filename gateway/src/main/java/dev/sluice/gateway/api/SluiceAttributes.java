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
