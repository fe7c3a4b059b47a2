package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.DelegatingBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.HoldBack;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.dispatch.queue.LaneShare.View;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where other replicas spend from a budget too, a door decides on a view of it no older than
 * {@link ProviderDispatcher#FRESH_VIEW_MS}: a replica idle since before the others took the room
 * must not tell its next caller "at once". Alone, it decides on its own view without a store call.
 * Two dispatchers on one store are two replicas.
 */
class FreshViewTest {
    static final BudgetLimits TWO_SLOTS = new BudgetLimits(600, 1_000_000, 2, 60_000);

    final FakeClock clock = new FakeClock(1_000_000);
    final ProviderBudgetStore shared = new InMemoryProviderBudgetStore(clock);
    final AtomicInteger bLooks = new AtomicInteger();
    final Scheduler loopA = Schedulers.newSingle("fresh-view-a", true);
    final Scheduler loopB = Schedulers.newSingle("fresh-view-b", true);
    final SimpleMeterRegistry bMeters = new SimpleMeterRegistry();
    final ProviderDispatcher a = replica(shared, loopA, new SimpleMeterRegistry());
    final ProviderDispatcher b = replica(
            new DelegatingBudgetStore(shared) {
                @Override
                public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
                    bLooks.incrementAndGet();
                    return inner.snapshot(key, limits);
                }
            },
            loopB,
            bMeters);

    ProviderDispatcher replica(ProviderBudgetStore store, Scheduler loop, SimpleMeterRegistry meters) {
        return new ProviderDispatcher(DispatcherSettings.of("lab:*", store, () -> TWO_SLOTS, clock, loop, meters)
                .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(2)))
                .withQueue(100, 0.1));
    }

    @AfterEach
    void stop() {
        loopA.dispose();
        loopB.dispose();
    }

    Job page(String id) {
        long now = clock.millis();
        return Job.of(id, "t-" + id, 1, JobClass.INTERACTIVE, 100, now, now + 60_000);
    }

    @Test
    void aReplicaThatSharesTheBudgetLooksAgainBeforeItsDoorDecidesOnAnOldView() {
        b.sharesLanes();
        othersSeenBy(b);
        Lease own = b.submit(page("b0"), 60_000).block(Duration.ofSeconds(5));
        b.finish(own, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        clock.advance(1_000); // B idle; A takes both slots
        Lease a0 = a.submit(page("a0"), 60_000).block(Duration.ofSeconds(5));
        Lease a1 = a.submit(page("a1"), 60_000).block(Duration.ofSeconds(5));
        int looks = bLooks.get();

        AtomicReference<Object> b1 = new AtomicReference<>();
        b.submit(page("b1"), 60_000).subscribe(b1::set, b1::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> b.depth() == 1);
        assertThat(bLooks.get())
                .as("a look at the store before the door's word")
                .isGreaterThan(looks);
        // A's calls end two seconds on (a mean call after they were taken): B's page starts then.
        clock.advance(2_000);
        a.finish(a0, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        a.finish(a1, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        b.wake();
        await().atMost(Duration.ofSeconds(5)).until(() -> b1.get() instanceof Lease);
        DistributionSummary error =
                bMeters.get(DispatcherMeters.WAIT_OF_ESTIMATE).summary();
        assertThat(error.max())
                .as("its wait against the door's estimate, in percent: told 2 s, not \"at once\"")
                .isBetween(80.0, 120.0);
    }

    /** A share of the fair queues shows {@code d} another replica's lane waiting. */
    void othersSeenBy(ProviderDispatcher d) {
        d.shared(new View(OptionalLong.of(0), Map.of()), HoldBack.NONE, clock.millis());
        Mono.fromRunnable(() -> {}).subscribeOn(d.loop()).block(Duration.ofSeconds(5)); // what it scheduled has run
    }

    @Test
    void aReplicaThatHasSeenNoOtherDecidesOnTheViewItHas() {
        // On Redis, alone: its lanes are shared, but no share has shown another replica's.
        b.sharesLanes();
        Lease own = b.submit(page("b0"), 60_000).block(Duration.ofSeconds(5));
        b.finish(own, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        clock.advance(300); // past the fresh view, within the remembered one: the pump asks no snapshot
        int looks = bLooks.get();
        AtomicReference<Object> b1 = new AtomicReference<>();
        b.submit(page("b1"), 60_000).subscribe(b1::set, b1::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> b1.get() instanceof Lease);
        assertThat(bLooks.get()).as("no look before the door's word").isEqualTo(looks);
    }
}
