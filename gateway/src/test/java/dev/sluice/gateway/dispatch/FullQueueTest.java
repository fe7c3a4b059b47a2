package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.GatewayBusyException;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A full queue is shared by tenant, not by arrival: a tenant with nothing in line gets in,
 * and the tenant holding the most of the queue gives up its last place (told busy at once).
 */
class FullQueueTest {
    static final BudgetLimits ONE_AT_A_TIME = new BudgetLimits(600, 120_000, 1, 60_000);
    static final long MAX_WAIT_MS = 60_000;

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("full-queue-test", true);
    final ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                    "lab:*",
                    new InMemoryProviderBudgetStore(clock),
                    () -> ONE_AT_A_TIME,
                    clock,
                    loop,
                    new SimpleMeterRegistry())
            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(1)))
            .withQueue(3, 0.1));

    @AfterEach
    void stop() {
        loop.dispose();
    }

    Job page(String id, String tenant) {
        long now = clock.millis();
        return Job.of(id, tenant, 1, JobClass.INTERACTIVE, 100, now, now + MAX_WAIT_MS);
    }

    /** Submits and records how it ends: the lease, or the busy answer. */
    AtomicReference<Object> submit(String id, String tenant) {
        AtomicReference<Object> outcome = new AtomicReference<>();
        dispatcher.submit(page(id, tenant), MAX_WAIT_MS).subscribe(outcome::set, outcome::set);
        return outcome;
    }

    @Test
    void aTenantWithNothingInLineTakesTheHogsLastPlace() {
        Lease first = dispatcher.submit(page("h1", "hog"), MAX_WAIT_MS).block(Duration.ofSeconds(5));
        assertThat(first).isNotNull(); // the one slot is taken: what follows waits in line
        AtomicReference<Object> h2 = submit("h2", "hog");
        AtomicReference<Object> h3 = submit("h3", "hog");
        AtomicReference<Object> h4 = submit("h4", "hog");
        await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.depth() == 3); // full

        AtomicReference<Object> newcomer = submit("n1", "newcomer");
        await().atMost(Duration.ofSeconds(5)).until(() -> h4.get() != null);
        assertThat(h4.get()).isInstanceOfSatisfying(GatewayBusyException.class, busy -> {
            assertThat(busy.getMessage()).contains("holds the most of it");
            assertThat(busy.position()).isEqualTo(3);
            assertThat(busy.retryAfterMs()).isPositive();
        });
        assertThat(newcomer.get()).as("waiting in line, not refused").isNull();
        assertThat(h2.get()).isNull();
        assertThat(h3.get()).isNull();
        assertThat(dispatcher.depth()).isEqualTo(3);

        // the hog asks again: the queue is full and it holds the most of it; its place is behind the newcomer's page
        AtomicReference<Object> h5 = submit("h5", "hog");
        await().atMost(Duration.ofSeconds(5)).until(() -> h5.get() != null);
        assertThat(h5.get()).isInstanceOfSatisfying(GatewayBusyException.class, busy -> {
            assertThat(busy.getMessage()).isEqualTo("The gateway's queue is full.");
            assertThat(busy.position()).isEqualTo(4);
        });
        assertThat(newcomer.get()).isNull();
    }
}
