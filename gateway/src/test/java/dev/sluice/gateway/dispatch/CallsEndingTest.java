package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The door knows when this replica's calls in flight end: a mean hold (2 s until answers say)
 * after each was taken, and "now" for one past it or being given back. A burst's calls, taken
 * together, free their slots together ({@code SendTime.slots}).
 */
class CallsEndingTest {
    static final BudgetLimits FOUR_SLOTS = new BudgetLimits(600, 120_000, 4, 60_000);

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("calls-ending-test", true);
    final ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                    "lab:*",
                    new InMemoryProviderBudgetStore(clock),
                    () -> FOUR_SLOTS,
                    clock,
                    loop,
                    new SimpleMeterRegistry())
            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(4))));

    @AfterEach
    void stop() {
        loop.dispose();
    }

    Lease take(String id) {
        long now = clock.millis();
        Job job = Job.of(id, "t", 1, JobClass.INTERACTIVE, 100, now, now + 60_000);
        return dispatcher.submit(job, 60_000).block(Duration.ofSeconds(5));
    }

    @Test
    void eachCallEndsAMeanCallAfterItWasTaken() {
        assertThat(dispatcher.capacity().ending()).isEmpty();
        take("a");
        take("b");
        clock.advance(500);
        Lease c = take("c");
        assertThat(dispatcher.capacity().ending()).containsExactly(1_500L, 1_500L, 2_000L);

        clock.advance(1_800); // a and b are past the mean: they end now, as far as anyone knows
        assertThat(dispatcher.capacity().ending()).containsExactly(0L, 0L, 200L);

        dispatcher.giveBack(c);
        assertThat(dispatcher.capacity().ending()).as("c given back").containsExactly(0L, 0L);
    }

    @Test
    void theMeanIsHowLongASlotIsHeldFromItsGrant() {
        Lease a = take("a");
        clock.advance(3_000); // granted, then half a second to reach the provider under a burst, and the call
        dispatcher.finish(a, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        assertThat(dispatcher.capacity().meanCallMs())
                .as("half-way from 2 s to 3 s at once")
                .isEqualTo(2_500);

        Lease b = take("b");
        clock.advance(100);
        dispatcher.finish(b, AimdLimit.Outcome.FAILED, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        assertThat(dispatcher.capacity().meanCallMs())
                .as("a failure says nothing of the hold")
                .isEqualTo(2_500);
    }
}
