package dev.sluice.gateway.dispatch;

/**
 * The answer of one atomic budget admission.
 *
 * @param admitted whether a request, the tokens and an in-flight slot (the lease) were taken
 * @param refusal  when refused, the constraint that frees last (else null)
 * @param waitMs   when refused: from now until this call could fit (window arithmetic, the
 *                 pause's end, or for {@link BudgetRefusal#IN_FLIGHT} a hint); -1 when its
 *                 tokens exceed the whole budget and it never fits; 0 when admitted
 * @param snapshot the budget after the decision, at {@code snapshot.nowMs()}
 */
public record BudgetDecision(boolean admitted, BudgetRefusal refusal, long waitMs, BudgetSnapshot snapshot) {

    public long nowMs() {
        return snapshot.nowMs();
    }

    /** When the charge is stamped (now plus the limits' count delay): the key to {@link ProviderBudgetStore#adjust} later. */
    public long chargedAtMs() {
        return snapshot.nowMs() + snapshot.limits().countDelayMs();
    }

    public boolean neverFits() {
        return !admitted && waitMs < 0;
    }
}
