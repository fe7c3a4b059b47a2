package dev.sluice.gateway.dispatch;

/**
 * A job's place at the provider: an in-flight slot and the requests and tokens charged to the
 * shared budget at {@code chargedAtMs}. Released exactly once by whoever ends the call.
 *
 * @param countsFromMs the earliest the provider may count the call ({@link BudgetDecision#countsFromMs})
 * @param probe        the call probes a provider whose circuit was open ({@link ProviderHealth})
 */
public record Lease(String budgetKey, String leaseId, Job job, long chargedAtMs, long queuedMs, long countsFromMs,
                    boolean probe) {
    public Lease(String budgetKey, String leaseId, Job job, long chargedAtMs, long queuedMs) {
        this(budgetKey, leaseId, job, chargedAtMs, queuedMs, chargedAtMs, false);
    }
}
