package dev.sluice.gateway.dispatch.budget;

import java.util.Objects;

/**
 * One call asking a provider budget for room ({@link ProviderBudgetStore#tryAcquire}): its charge
 * and the lease its slot is held as.
 *
 * @param charge       one request and its tokens; the input (the calibrated prompt) and output
 *                     (max_tokens) count only where the limits have such windows
 * @param leaseId      names the slot taken, unique per attempt
 * @param needSchedule whether the caller needs the decision's leaving schedule
 *                     ({@link BudgetSnapshot#leaving}). Reading it is most of an acquire's cost in
 *                     Redis, and it only serves the door's wait estimates: a store may leave it out
 *                     (null) when this is false, the acquire was admitted and the window is under half full
 */
public record Acquire(Amounts charge, String leaseId, boolean needSchedule) {
    public Acquire {
        Objects.requireNonNull(charge, "charge");
        if (charge.requests() != 1)
            throw new IllegalArgumentException("an acquire charges one request, not " + charge.requests());
    }

    /** A call of {@code tokens}, without input or output, that reads the schedule. */
    public static Acquire of(long tokens, String leaseId) {
        return new Acquire(Amounts.call(tokens, 0, 0), leaseId, true);
    }

    /** The same call, reading the schedule. */
    public Acquire withSchedule() {
        return needSchedule ? this : new Acquire(charge, leaseId, true);
    }

    /** The charge as {@code limits} count it: input and output only where they have such windows. */
    public Amounts chargeOn(BudgetLimits limits) {
        return Amounts.call(
                charge.tokens(),
                limits.inputTokensPerMinute() > 0 ? charge.input() : 0,
                limits.outputTokensPerMinute() > 0 ? charge.output() : 0);
    }
}
