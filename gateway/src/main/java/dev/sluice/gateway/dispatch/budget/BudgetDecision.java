package dev.sluice.gateway.dispatch.budget;

/**
 * The answer of one atomic budget admission.
 *
 * @param admitted whether a request, the tokens and an in-flight slot (the lease) were taken
 * @param refusal  when refused, the constraint that frees last (else null)
 * @param waitMs   when refused: from now until this call could fit (window arithmetic, the
 *                 pause's end, or for {@link BudgetRefusal#IN_FLIGHT} a hint); -1 when its
 *                 tokens exceed the whole budget and it never fits; 0 when admitted
 * @param snapshot the budget after the decision, at {@code snapshot.nowMs()}
 * @param chargedAtMs when the charge is stamped: the key to {@link ProviderBudgetStore#adjust} later. For an
 *                 admission of its own, now plus the limits' count delay; for a call spent from a replica's
 *                 slice ({@link ReplicaLeases}), the slice's stamp, which may be earlier
 */
public record BudgetDecision(
        boolean admitted, BudgetRefusal refusal, long waitMs, BudgetSnapshot snapshot, long chargedAtMs) {

    /** A decision whose charge was made by this admission, stamped now plus the count delay. */
    public BudgetDecision(boolean admitted, BudgetRefusal refusal, long waitMs, BudgetSnapshot snapshot) {
        this(
                admitted,
                refusal,
                waitMs,
                snapshot,
                snapshot.nowMs() + snapshot.limits().countDelayMs());
    }

    public long nowMs() {
        return snapshot.nowMs();
    }

    /**
     * The earliest the provider may count the call: this decision's now plus the count delay. A
     * settlement moves the charge at least there, so a call spent late from an early slice leaves
     * the window no sooner than one admitted on its own.
     */
    public long countsFromMs() {
        return snapshot.nowMs() + snapshot.limits().countDelayMs();
    }

    public boolean neverFits() {
        return !admitted && waitMs < 0;
    }
}
