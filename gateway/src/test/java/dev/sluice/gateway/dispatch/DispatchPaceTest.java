package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.DelegatingBudgetStore;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The door's estimate counts the time the pump takes to hand out room ({@link DispatchPace}): a job
 * with jobs ahead of it waits for their acquires, one after the other, whatever room the budget has.
 */
class DispatchPaceTest {
    static final BudgetLimits ROOMY = new BudgetLimits(6_000, 10_000_000, 100, 60_000);
    static final long ACQUIRE_MS = 10;

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("dispatch-pace-test", true);
    /** Closed: an acquire waits until it opens. */
    final AtomicReference<Sinks.Empty<Void>> gate = new AtomicReference<>();

    final ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                    "lab:*",
                    new DelegatingBudgetStore(new InMemoryProviderBudgetStore(clock)) {
                        @Override
                        public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
                            Sinks.Empty<Void> closed = gate.get();
                            Mono<Void> open = closed == null ? Mono.empty() : closed.asMono();
                            // Each acquire takes 10 ms of the store's time.
                            return open.then(Mono.fromRunnable(() -> clock.advance(ACQUIRE_MS)))
                                    .then(Mono.defer(() -> inner.tryAcquire(key, limits, call)));
                        }
                    },
                    () -> ROOMY,
                    clock,
                    loop,
                    new SimpleMeterRegistry())
            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(100)))
            .withQueue(100, 0.1));

    @AfterEach
    void stop() {
        loop.dispose();
    }

    Job page(String id) {
        long now = clock.millis();
        return Job.of(id, "a", 1, JobClass.INTERACTIVE, 100, now, now + 60_000);
    }

    DoorDecision ask(Job job) {
        return Mono.fromCallable(() -> dispatcher.ask(job, 60_000, clock.millis()))
                .subscribeOn(loop)
                .block(Duration.ofSeconds(5));
    }

    @Test
    void aJobBehindOthersWaitsForTheirDispatchesThoughTheBudgetHasRoom() {
        for (int i = 0; i < 4; i++) {
            assertThat(dispatcher.submit(page("warm" + i), 60_000).block(Duration.ofSeconds(5)))
                    .isNotNull();
        }
        // The store stalls an acquire; five more pages of the same tenant line up behind it.
        Sinks.Empty<Void> closed = Sinks.empty();
        gate.set(closed);
        List<AtomicReference<Object>> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            AtomicReference<Object> p = new AtomicReference<>();
            dispatcher.submit(page("p" + i), 60_000).subscribe(p::set, p::set);
            waiting.add(p);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.depth() == 5);

        DoorDecision behind = ask(page("behind"));
        assertThat(behind.accepted()).isTrue();
        assertThat(behind.position()).isEqualTo(6);
        assertThat(behind.estimatedWaitMs())
                .as("five dispatches of 10 ms ahead of it, 96 slots free")
                .isEqualTo(5 * ACQUIRE_MS);

        gate.set(null);
        closed.tryEmitEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> waiting.stream().allMatch(p -> p.get() instanceof Lease));
        assertThat(ask(page("alone")).estimatedWaitMs())
                .as("first in line with room: at once")
                .isZero();
    }

    @Test
    void thePaceFollowsTheLastEightDispatchesAndStartsWithTheFirst() {
        DispatchPace pace = new DispatchPace();
        assertThat(pace.waitMs(100)).isZero();
        pace.took(10);
        assertThat(pace.waitMs(3)).isEqualTo(30);
        pace.took(90); // 10 + (90 - 10) / 8 = 20
        assertThat(pace.waitMs(3)).isEqualTo(60);
        pace.took(-5); // a clock stepped back counts as nothing: 20 - 20 / 8 = 17.5
        assertThat(pace.waitMs(2)).isEqualTo(35);
        assertThat(pace.waitMs(0)).isZero();
        assertThat(pace.waitMs(Integer.MAX_VALUE)).isPositive();
    }
}
