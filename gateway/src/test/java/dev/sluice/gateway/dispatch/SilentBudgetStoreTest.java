package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.DelegatingBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A budget store that stops answering (Redis hung, a reply lost) must not stop the dispatcher
 * for good: each call is given up after the store timeout and the loop tries again. Before the
 * timeout, one silent snapshot left the loop "pumping" forever and every request behind it hung.
 */
class SilentBudgetStoreTest {
    static final BudgetLimits LIMITS = new BudgetLimits(600, 120_000, 10, 60_000);
    static final Duration TIMEOUT = Duration.ofMillis(200);

    final Clock clock = Clock.systemUTC();
    final Scheduler loop = Schedulers.newSingle("silent-store-test", true);

    @AfterEach
    void stop() {
        loop.dispose();
    }

    ProviderDispatcher dispatcher(ProviderBudgetStore store) {
        return new ProviderDispatcher(
                DispatcherSettings.of("lab:*", store, () -> LIMITS, clock, loop, new SimpleMeterRegistry())
                        .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                        .withQueue(100, 0.1)
                        .withStoreTimeout(TIMEOUT));
    }

    Job job(String id) {
        long now = clock.millis();
        return Job.of(id, "tenant-a", 1, JobClass.INTERACTIVE, 800, now, now + 30_000);
    }

    @Test
    void aSnapshotThatNeverAnswersIsGivenUpAndTheJobStillGoes() {
        AtomicInteger snapshots = new AtomicInteger();
        ProviderBudgetStore store = new DelegatingBudgetStore(new InMemoryProviderBudgetStore(clock)) {
            @Override
            public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
                return snapshots.getAndIncrement() == 0 ? Mono.never() : super.snapshot(key, limits);
            }
        };
        Lease lease = dispatcher(store).submit(job("j1"), 30_000).block(Duration.ofSeconds(10));
        assertThat(lease).isNotNull();
        assertThat(snapshots.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void anAcquireThatNeverAnswersHasItsLeaseReleasedAndTheJobIsRetried() {
        AtomicInteger acquires = new AtomicInteger();
        InMemoryProviderBudgetStore memory = new InMemoryProviderBudgetStore(clock);
        ProviderBudgetStore store = new DelegatingBudgetStore(memory) {
            @Override
            public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
                // The first charge lands in the store but its answer is lost.
                if (acquires.getAndIncrement() == 0)
                    return super.tryAcquire(key, limits, call).then(Mono.never());
                return super.tryAcquire(key, limits, call);
            }
        };
        ProviderDispatcher dispatcher = dispatcher(store);
        Lease lease = dispatcher.submit(job("j1"), 30_000).block(Duration.ofSeconds(10));
        assertThat(lease).isNotNull();
        assertThat(acquires.get()).isEqualTo(2);
        // Only the retried attempt holds a slot: the lost one was released, not leaked.
        assertThat(memory.snapshot("lab:*", LIMITS).block().inFlight()).isEqualTo(1);
        dispatcher.finish(lease, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        assertThat(memory.snapshot("lab:*", LIMITS).block().inFlight()).isZero();
    }

    @Test
    void aReleaseThatNeverAnswersDoesNotHoldTheCaller() {
        ProviderBudgetStore store = new DelegatingBudgetStore(new InMemoryProviderBudgetStore(clock)) {
            @Override
            public Mono<Boolean> release(String key, String leaseId) {
                return Mono.never();
            }
        };
        ProviderDispatcher dispatcher = dispatcher(store);
        Lease lease = dispatcher.submit(job("j1"), 30_000).block(Duration.ofSeconds(10));
        // Ends after the store timeout instead of never; the slot's lease expires on its own.
        dispatcher.finish(lease, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
    }
}
