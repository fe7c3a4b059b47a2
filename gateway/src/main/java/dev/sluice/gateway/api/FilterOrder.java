package dev.sluice.gateway.api;

/**
 * The request path, stage by stage, in the order its global filters run; each stage is one
 * filter, named here with its file. Spring Cloud Gateway's own routing filters run at 10000
 * and above.
 * <pre>
 * AUTHENTICATE  auth/TenantAuthenticationFilter     key → tenant, tier, configuration snapshot
 * MODELS        surface/ModelsFilter                /v1/models, answered from the configuration
 * ESTIMATE      estimate/EstimateFilter             prompt tokens + max_tokens, X-Sluice-* options
 * QUOTA         quota/QuotaFilter                   charge the estimate to the tenant's windows
 * LADDER        degrade/LadderFilter                pass, downgrade, delay (and ask again) or 429
 * SETTLE        usage/SettleFilter                  read the answer's usage, settle the charge once
 * DISPATCH      dispatch/DispatchFilter             fair lanes, provider budget, the call upstream
 * </pre>
 */
public final class FilterOrder {
    public static final int AUTHENTICATE = -1000;
    /** /v1/models is answered here, from the configuration: authenticated, never estimated, charged or proxied. */
    public static final int MODELS = -950;
    public static final int ESTIMATE = -900;
    /** Reserves the quota. */
    public static final int QUOTA = -800;
    public static final int LADDER = -790;
    /** Inside the ladder (its refusals are not settled: nothing was charged) and around dispatch (its answer is). */
    public static final int SETTLE = -780;
    public static final int DISPATCH = -700;
    public static final int UPSTREAM_CREDENTIALS = 9000;

    private FilterOrder() {
    }
}
