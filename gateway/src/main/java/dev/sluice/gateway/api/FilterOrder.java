package dev.sluice.gateway.api;

/**
 * The request path, stage by stage, in the order its global filters run; each stage is one
 * filter, named here with its file. Spring Cloud Gateway's own routing filters run at 10000
 * and above.
 * <pre>
 * AUTHENTICATE  auth/TenantAuthenticationFilter     key → tenant, tier, configuration snapshot
 * ENDPOINTS     surface/EndpointAccessFilter        403 endpoint_not_allowed for an operation the tier does not open
 * MODELS        surface/ModelsFilter                /v1/models, answered from the configuration
 * SLUICE_USAGE  spend/UsageFilter                   /v1/sluice/usage, the tenant's own usage and budgets
 * ESTIMATE      estimate/EstimateFilter             prompt tokens + max_tokens, X-Sluice-* options
 * OWNERSHIP     objects/ObjectOwnershipFilter       a tenant's own files, batches, responses…; a batch's file estimate
 * MODEL_ACCESS  surface/ModelAccessFilter           403 model_not_allowed for a model the tier does not list
 * ROUTE         surface/ModelRouteFilter            404 model_not_found when no provider serves the model
 * SPEND_REFUSALS spend/SpendRefusalsMeter           counts the spend budgets' refusals per tier and period
 * QUOTA         quota/QuotaFilter                   charge the estimate to the tenant's windows
 * SHADOW        shadow/ShadowFilter                 the draft in shadow decides it too, apart (no effect on it)
 * LADDER        degrade/LadderFilter                pass, downgrade, delay (and ask again) or 429
 * SETTLE        usage/SettleFilter                  read the answer's usage, settle the charge once
 * DISPATCH      dispatch/DispatchFilter             the route's provider, fair lanes, its budget, the call (failover)
 * (0)           dispatch/upstream/ProviderConnection the call's provider connection, closed only while the call holds it
 * (10001)       dispatch/UpstreamCredentialsFilter  the chosen provider's URL and key
 * </pre>
 */
public final class FilterOrder {
    public static final int AUTHENTICATE = -1000;
    /** Once the tier is known, before anything is read or charged: the tier opens the operation, or 403. */
    public static final int ENDPOINTS = -975;
    /** /v1/models is answered here, from the configuration: authenticated, never estimated, charged or proxied. */
    public static final int MODELS = -950;
    /** /v1/sluice/usage is answered here: authenticated, never estimated, charged or proxied. */
    public static final int SLUICE_USAGE = -940;

    public static final int ESTIMATE = -900;
    /**
     * After the body is read, before anything is charged: another tenant's object is a 404, and a
     * batch's estimate (its input file's) replaces the estimate stage's placeholder before ROUTE and QUOTA read it.
     */
    public static final int OWNERSHIP = -875;
    /** Once the model is known (estimate, a batch's file), before anything is charged: the tier may use it, or 403. */
    public static final int MODEL_ACCESS = -860;
    /** Before anything is charged: a model no provider serves is a 404. */
    public static final int ROUTE = -850;
    /** Around the quota and the ladder: sees which requests a spend budget refused. */
    public static final int SPEND_REFUSALS = -801;
    /** Reserves the quota. */
    public static final int QUOTA = -800;

    /** Between the quota's answer and the ladder: the draft in shadow decides the request too (shadow/). */
    public static final int SHADOW = -795;

    public static final int LADDER = -790;
    /** Inside the ladder (its refusals are not settled: nothing was charged) and around dispatch (its answer is). */
    public static final int SETTLE = -780;

    public static final int DISPATCH = -700;
    /**
     * Inside Spring Cloud Gateway's NettyWriteResponseFilter (-1), around its routing: the connection it writes the
     * answer from is disposed only while the call holds it ({@code dispatch/upstream/ProviderConnection}).
     */
    public static final int PROVIDER_CONNECTION = 0;
    /** After Spring Cloud Gateway's RouteToRequestUrlFilter (10000): the chosen provider's URL replaces the route's. */
    public static final int UPSTREAM_CREDENTIALS = 10001;

    private FilterOrder() {}
}
