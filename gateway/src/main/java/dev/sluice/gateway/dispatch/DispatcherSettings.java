package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import reactor.core.scheduler.Scheduler;

/**
 * What a dispatcher is made of: its budget's key, limits and store, its adaptive limit and its
 * provider's circuit (shared by the provider's budgets, one per model), its line's size, and
 * the loop, clock and meters it shares with the other budgets. {@link #of} gives the defaults;
 * the {@code with} copies change one part.
 */
public record DispatcherSettings(
        String key,
        ProviderBudgetStore store,
        Supplier<BudgetLimits> limits,
        AimdLimit aimd,
        int queueCapacity,
        double interactiveFloor,
        Duration storeTimeout,
        Clock clock,
        Scheduler loop,
        MeterRegistry meters,
        PendingWork pending,
        ProviderHealth health) {
    /**
     * The defaults: the settings' own (a line of 10,000 with a tenth kept for interactive
     * calls, 2 s per store call), the adaptive limit starting at the limits' in-flight, no
     * pending work tracked, the default circuit.
     */
    public static DispatcherSettings of(
            String key,
            ProviderBudgetStore store,
            Supplier<BudgetLimits> limits,
            Clock clock,
            Scheduler loop,
            MeterRegistry meters) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                new AimdLimit(AimdLimit.Settings.startingAt(limits.get().maxInFlight())),
                10_000,
                0.1,
                Duration.ofSeconds(2),
                clock,
                loop,
                meters,
                PendingWork.untracked(),
                new ProviderHealth(ProviderHealth.Settings.DEFAULTS));
    }

    public DispatcherSettings withAimd(AimdLimit aimd) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                aimd,
                queueCapacity,
                interactiveFloor,
                storeTimeout,
                clock,
                loop,
                meters,
                pending,
                health);
    }

    public DispatcherSettings withQueue(int queueCapacity, double interactiveFloor) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                aimd,
                queueCapacity,
                interactiveFloor,
                storeTimeout,
                clock,
                loop,
                meters,
                pending,
                health);
    }

    public DispatcherSettings withStoreTimeout(Duration storeTimeout) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                aimd,
                queueCapacity,
                interactiveFloor,
                storeTimeout,
                clock,
                loop,
                meters,
                pending,
                health);
    }

    public DispatcherSettings withPending(PendingWork pending) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                aimd,
                queueCapacity,
                interactiveFloor,
                storeTimeout,
                clock,
                loop,
                meters,
                pending,
                health);
    }

    public DispatcherSettings withHealth(ProviderHealth health) {
        return new DispatcherSettings(
                key,
                store,
                limits,
                aimd,
                queueCapacity,
                interactiveFloor,
                storeTimeout,
                clock,
                loop,
                meters,
                pending,
                health);
    }
}
