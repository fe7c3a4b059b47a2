package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.FinishedCall;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** {@code sluice_budget_utilisation} follows the window as it empties, not the last busy minute. */
class BudgetGaugeTest {
    static final BudgetLimits LIMITS = new BudgetLimits(600, 120_000, 10, 60_000);

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("budget-gauge-test", true);
    final MeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void stop() {
        loop.dispose();
    }

    double gauge(String unit) {
        return meters.get("sluice.budget.utilisation").tag("unit", unit).gauge().value();
    }

    @Test
    void anIdleReplicasGaugeFallsToZeroOnceItsChargesHaveLeftTheWindow() {
        ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                        "lab:*", new InMemoryProviderBudgetStore(clock), () -> LIMITS, clock, loop, meters)
                .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                .withQueue(100, 0.1));
        assertThat(gauge("tokens")).isZero();

        long now = clock.millis();
        Lease lease = dispatcher
                .submit(Job.of("j1", "t", 1, JobClass.INTERACTIVE, 12_000, now, now + 30_000), 30_000)
                .block(Duration.ofSeconds(5));
        dispatcher.finish(lease, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        // The caller gets its lease from the store's reply; the loop records the budget just after.
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("tokens") == 0.1);
        assertThat(gauge("requests")).isEqualTo(1.0 / 600);

        clock.advance(30_000); // still in the window
        assertThat(gauge("tokens")).isEqualTo(0.1);
        clock.advance(32_000); // past the minute (slots are one second): nothing left, nothing asked since
        assertThat(gauge("tokens")).isZero();
        assertThat(gauge("requests")).isZero();
    }

    @Test
    void aBudgetWithInputAndOutputLimitsHasAGaugeForEachAndOthersDoNot() {
        BudgetLimits split = new BudgetLimits(600, Long.MAX_VALUE, 10, 60_000, 40_000, 8_000);
        ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                        "anthropic:*", new InMemoryProviderBudgetStore(clock), () -> split, clock, loop, meters)
                .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                .withQueue(100, 0.1));
        new ProviderDispatcher(DispatcherSettings.of(
                        "lab:*", new InMemoryProviderBudgetStore(clock), () -> LIMITS, clock, loop, meters)
                .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                .withQueue(100, 0.1));
        assertThat(meters.find("sluice.budget.utilisation")
                        .tag("budget", "lab:*")
                        .gauges())
                .as("no split: as before")
                .extracting(g -> g.getId().getTag("unit"))
                .containsExactlyInAnyOrder("tokens", "requests");

        long now = clock.millis();
        Job job = Job.of("j1", "t", 1, JobClass.INTERACTIVE, 5_000, now, now + 30_000)
                .withSplit(4_000, 1_000);
        Lease lease = dispatcher.submit(job, 30_000).block(Duration.ofSeconds(5));
        // The answer: a prompt of 4,000 as charged, 200 of the 1,000 output tokens written.
        dispatcher
                .finish(lease, new FinishedCall(AimdLimit.Outcome.SUCCESS, 0, 0, -800), Long.MIN_VALUE)
                .block(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> splitGauge("input_tokens") == 0.1);
        assertThat(splitGauge("output_tokens"))
                .as("the charge of 1,000 before the answer settled it")
                .isEqualTo(1_000 / 8_000.0);
    }

    double splitGauge(String unit) {
        return meters.get("sluice.budget.utilisation")
                .tag("budget", "anthropic:*")
                .tag("unit", unit)
                .gauge()
                .value();
    }
}
