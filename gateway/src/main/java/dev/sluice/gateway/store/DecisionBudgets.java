package dev.sluice.gateway.store;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Hands each arriving request its {@link DecisionBudget} ({@code sluice.store.decision-timeout}).
 *
 * @param budget    how long one request may wait on the store in all
 * @param nanoClock monotonic nanoseconds the waits are measured with
 */
public record DecisionBudgets(Duration budget, LongSupplier nanoClock) {
    public static DecisionBudgets of(Duration budget) {
        return new DecisionBudgets(budget, System::nanoTime);
    }

    /** A fresh budget, for one request. */
    public DecisionBudget start() {
        return DecisionBudget.of(budget, nanoClock);
    }
}
