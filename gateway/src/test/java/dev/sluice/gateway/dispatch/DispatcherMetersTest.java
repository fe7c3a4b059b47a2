package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Every meter of a budget's dispatcher says which provider and which model it is about, beside
 * the budget's name that dashboards and alerts already read; and the pause a provider asked for
 * is a gauge that counts down.
 */
class DispatcherMetersTest {
    static final BudgetLimits LIMITS = new BudgetLimits(600, 120_000, 10, 60_000);
    static final List<String> GAUGES = List.of(
            "sluice.queue.depth",
            "sluice.concurrency.limit",
            "sluice.inflight",
            "sluice.budget.utilisation",
            "sluice.budget.paused");

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("dispatcher-meters-test", true);
    final MeterRegistry meters = new SimpleMeterRegistry();
    final InMemoryProviderBudgetStore store = new InMemoryProviderBudgetStore(clock);

    @AfterEach
    void stop() {
        loop.dispose();
    }

    ProviderDispatcher dispatcher(String key) {
        return new ProviderDispatcher(DispatcherSettings.of(key, store, () -> LIMITS, clock, loop, meters)
                .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                .withQueue(100, 0.1));
    }

    @Test
    void everyMeterOfABudgetCarriesItsProviderAndModelBesideTheBudget() {
        dispatcher("primary:gpt-4o-mini");
        dispatcher("secondary:*");
        // A model name may hold ':' (a fine-tuned model): the provider is what comes before the first one.
        dispatcher("primary:ft:gpt-4o-mini:acme::9xY");

        for (String name : GAUGES) {
            assertThat(meters.find(name)
                            .tag("provider", "primary")
                            .tag("model", "gpt-4o-mini")
                            .tag("budget", "primary:gpt-4o-mini")
                            .gauges())
                    .as(name)
                    .isNotEmpty();
            assertThat(meters.find(name)
                            .tag("provider", "secondary")
                            .tag("model", "*")
                            .tag("budget", "secondary:*")
                            .gauges())
                    .as(name)
                    .isNotEmpty();
            assertThat(meters.find(name)
                            .tag("provider", "primary")
                            .tag("model", "ft:gpt-4o-mini:acme::9xY")
                            .gauges())
                    .as(name)
                    .isNotEmpty();
        }
        assertThat(meters.find("sluice.queue.wait")
                        .tag("provider", "secondary")
                        .tag("model", "*")
                        .tag("budget", "secondary:*")
                        .timer())
                .isNotNull();
        assertThat(meters.find("sluice.budget.utilisation")
                        .tag("provider", "primary")
                        .gauges())
                .as("tokens and requests, two budgets")
                .hasSize(4);
        for (Meter m : meters.getMeters()) {
            assertThat(m.getId().getTag("provider")).as(m.getId().toString()).isNotNull();
            assertThat(m.getId().getTag("model")).as(m.getId().toString()).isNotNull();
        }
    }

    @Test
    void aPauseTheProviderAskedForCountsDownOnItsGauge() {
        ProviderDispatcher dispatcher = dispatcher("primary:*");
        double paused = meters.get("sluice.budget.paused")
                .tag("provider", "primary")
                .gauge()
                .value();
        assertThat(paused).isZero();

        long now = clock.millis();
        Lease lease = dispatcher
                .submit(Job.of("j1", "t", 1, JobClass.INTERACTIVE, 1_000, now, now + 30_000), 30_000)
                .block(Duration.ofSeconds(5));
        dispatcher.pushedBack(lease, 20_000).block(Duration.ofSeconds(5)); // the provider's 429, retry after 20 s
        // The next call finds the budget paused: this replica sees the pause in the store's answer.
        dispatcher
                .submit(Job.of("j2", "t", 1, JobClass.INTERACTIVE, 1_000, now, now + 60_000), 60_000)
                .subscribe();
        await().atMost(Duration.ofSeconds(5)).until(() -> pausedSeconds() == 20.0);

        clock.advance(5_000);
        assertThat(pausedSeconds()).isEqualTo(15.0);
        clock.advance(16_000);
        assertThat(pausedSeconds()).isZero();
    }

    double pausedSeconds() {
        return meters.get("sluice.budget.paused")
                .tag("budget", "primary:*")
                .gauge()
                .value();
    }
}
