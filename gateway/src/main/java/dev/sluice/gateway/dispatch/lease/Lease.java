package dev.sluice.gateway.dispatch.lease;

import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.upstream.SentRequest;

/**
 * A job's place at the provider: an in-flight slot and the requests and tokens charged to the
 * shared budget at {@code chargedAtMs}. Released exactly once by whoever ends the call.
 *
 * @param countsFromMs the earliest the provider may count the call ({@link BudgetDecision#countsFromMs}), later
 *                     for a call sent late or not proved counted ({@link #sentAfter})
 * @param probe        the call probes a provider whose circuit was open ({@link ProviderHealth})
 */
public record Lease(
        String budgetKey, String leaseId, Job job, long chargedAtMs, long queuedMs, long countsFromMs, boolean probe) {
    public Lease(String budgetKey, String leaseId, Job job, long chargedAtMs, long queuedMs) {
        this(budgetKey, leaseId, job, chargedAtMs, queuedMs, chargedAtMs, false);
    }

    /**
     * The same lease for a call the provider may have counted {@code delayMs} later than its
     * admission plus the count delay ({@link SentRequest#countsLaterByMs}: sent late, or an answer
     * that proves nothing). A settlement then moves the charge at least there, and the gateway's
     * minute frees the call no sooner than a provider that counts on arrival.
     */
    public Lease sentAfter(long delayMs) {
        if (delayMs <= 0) return this;
        long from = countsFromMs > Long.MAX_VALUE - delayMs ? Long.MAX_VALUE : countsFromMs + delayMs;
        return new Lease(budgetKey, leaseId, job, chargedAtMs, queuedMs, from, probe);
    }
}
