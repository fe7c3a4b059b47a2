package dev.sluice.gateway.dispatch;

/**
 * A job's place at the provider: an in-flight slot and the requests and tokens charged to the
 * shared budget at {@code chargedAtMs}. Released exactly once by whoever ends the call.
 */
public record Lease(String budgetKey, String leaseId, Job job, long chargedAtMs, long queuedMs) {
}
