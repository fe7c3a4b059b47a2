package dev.sluice.gateway.api;

/**
 * What the request path reports about a tenant's traffic as it passes: the stages call it, the
 * abuse capability implements it ({@code abuse/TenantActivity}). A port here so the early stages
 * (authenticate, reserve) need not know the abuse detector. Every call only touches this process's
 * memory and never waits on a store.
 */
public interface RequestActivity {

    /** The tenant sent a request, served under {@code tierName}. */
    void requestSeen(String tenantId, String tierName);

    /** The request path took {@code stage} (passed, downgraded, delayed, rejected, busy) for one of its requests. */
    void stageTaken(String tenantId, String stage);
}
