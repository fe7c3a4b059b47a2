package dev.sluice.gateway.config;

/** What a tier's requests get when the shared store cannot answer in time. */
public enum RedisDownPolicy {
    /** Keep serving, limited by a per-replica in-memory limiter. */
    FAIL_OPEN,
    /** Refuse with 503 rather than risk overspending. */
    FAIL_CLOSED
}
