package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
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
        return with(c -> c.aimd = aimd);
    }

    public DispatcherSettings withQueue(int queueCapacity, double interactiveFloor) {
        return with(c -> {
            c.queueCapacity = queueCapacity;
            c.interactiveFloor = interactiveFloor;
        });
    }

    public DispatcherSettings withStoreTimeout(Duration storeTimeout) {
        return with(c -> c.storeTimeout = storeTimeout);
    }

    public DispatcherSettings withPending(PendingWork pending) {
        return with(c -> c.pending = pending);
    }

    public DispatcherSettings withHealth(ProviderHealth health) {
        return with(c -> c.health = health);
    }

    /** These settings with what {@code change} sets on a copy of their parts. */
    private DispatcherSettings with(Consumer<Copy> change) {
        Copy c = new Copy();
        change.accept(c);
        return c.build();
    }

    /** The parts of these settings, to change before {@link #build} makes settings of them again. */
    private final class Copy {
        String key = key();
        ProviderBudgetStore store = store();
        Supplier<BudgetLimits> limits = limits();
        AimdLimit aimd = aimd();
        int queueCapacity = queueCapacity();
        double interactiveFloor = interactiveFloor();
        Duration storeTimeout = storeTimeout();
        Clock clock = clock();
        Scheduler loop = loop();
        MeterRegistry meters = meters();
        PendingWork pending = pending();
        ProviderHealth health = health();

        DispatcherSettings build() {
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
}
