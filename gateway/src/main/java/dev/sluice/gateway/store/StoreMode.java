package dev.sluice.gateway.store;

/** Where quotas, budgets, tenants and flags live. */
public enum StoreMode {
    /** Shared by every replica. */
    REDIS,
    /** This process only: the embedded default for a single instance. */
    MEMORY
}
