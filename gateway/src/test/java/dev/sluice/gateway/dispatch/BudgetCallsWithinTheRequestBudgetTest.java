package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.DelegatingBudgetStore;
import dev.sluice.gateway.dispatch.budget.FallbackProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ReplicaLeases;
import dev.sluice.gateway.dispatch.budget.SliceAsk;
import dev.sluice.gateway.dispatch.budget.SliceGrant;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The provider budget's store calls made for a waiting request (the head's snapshot, its acquire)
 * wait no longer than what the request has left to wait on the store, not the dispatch loop's
 * own 2 s: past it the request is served on this replica's share of the limits, the Redis-down
 * policy, without another call. Before, a silent store held the line for 2 s, then again after
 * each retry.
 */
class BudgetCallsWithinTheRequestBudgetTest {
    static final BudgetLimits LIMITS = new BudgetLimits(600, 120_000, 10, 60_000);
    static final Duration DISPATCH_STORE_TIMEOUT = Duration.ofSeconds(2);

    final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
    final FakeClock clock = new FakeClock(1_900_000_000_000L);
    final InMemoryProviderBudgetStore share = new InMemoryProviderBudgetStore(clock);
    final AtomicInteger sharedCalls = new AtomicInteger();
    final AtomicInteger onShare = new AtomicInteger();
    /** Redis stalled: every shared call is sent and never answered; the share answers at once. */
    final ProviderBudgetStore stalled = new DelegatingBudgetStore(share) {
        @Override
        public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
            sharedCalls.incrementAndGet();
            return Mono.never();
        }

        @Override
        public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
            sharedCalls.incrementAndGet();
            return Mono.never();
        }

        @Override
        public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
            sharedCalls.incrementAndGet();
            return Mono.never();
        }

        @Override
        public Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, Acquire call) {
            onShare.incrementAndGet();
            return share.tryAcquire(key, limits, call);
        }

        @Override
        public Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
            return share.snapshot(key, limits);
        }
    };

    @AfterEach
    void realTime() {
        VirtualTimeScheduler.reset();
    }

    ProviderDispatcher dispatcher(ProviderBudgetStore store) {
        return new ProviderDispatcher(
                DispatcherSettings.of("lab:*", store, () -> LIMITS, clock, time, new SimpleMeterRegistry())
                        .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(10)))
                        .withQueue(100, 0.1)
                        .withStoreTimeout(DISPATCH_STORE_TIMEOUT));
    }

    DecisionBudget left(long ms) {
        return DecisionBudget.of(Duration.ofMillis(ms), () -> time.now(TimeUnit.NANOSECONDS));
    }

    AtomicReference<Lease> enter(ProviderDispatcher d, String id, DecisionBudget budget) {
        long now = clock.millis();
        Job job = Job.of(id, "tenant-a", 1, JobClass.INTERACTIVE, 800, now, now + 30_000);
        AtomicReference<Lease> got = new AtomicReference<>();
        RouteChoice.enter(List.of(new ProviderDispatcher.Candidate(d, job)), 30_000, 0, false, budget)
                .subscribe(got::set);
        return got;
    }

    @Test
    void aSilentSnapshotWaitsOnlyWhatTheRequestHasLeftAndItsJobGoesOnTheShare() {
        DecisionBudget budget = left(300); // the quota and the key lookup took the rest
        AtomicReference<Lease> lease = enter(dispatcher(stalled), "j1", budget);
        time.advanceTimeBy(Duration.ofMillis(299));
        assertThat(lease.get()).isNull();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(lease.get())
                .as("sent on the share as the budget ends, not 2 s later")
                .isNotNull();
        assertThat(budget.waited()).isEqualTo(Duration.ofMillis(300));
        assertThat(sharedCalls.get())
                .as("the snapshot only: the acquire, with nothing left, was not sent")
                .isEqualTo(1);
        assertThat(onShare.get()).isEqualTo(1);
        assertThat(share.snapshot("lab:*", LIMITS).block().inFlight()).isEqualTo(1);
    }

    @Test
    void aSilentAcquireIsCutAtTheBudgetNotTheDispatchTimeout() {
        ProviderBudgetStore answersSnapshots = new DelegatingBudgetStore(stalled) {
            @Override
            public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
                return share.snapshot(key, limits);
            }
        };
        DecisionBudget budget = left(750);
        AtomicReference<Lease> lease = enter(dispatcher(answersSnapshots), "j1", budget);
        time.advanceTimeBy(Duration.ofMillis(749));
        assertThat(lease.get()).isNull();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(lease.get()).isNotNull();
        assertThat(budget.spent()).isTrue();
        assertThat(onShare.get()).isEqualTo(1);
    }

    /** With the slices: the cut lease call's job is spent on the share, and its lease is given back there. */
    @Test
    void withSlicesTheShareLeaseIsReleasedOnTheShare() {
        ReplicaLeases slices = new ReplicaLeases(
                stalled, Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(50), 64, clock, null);
        ProviderDispatcher d = dispatcher(slices);
        AtomicReference<Lease> lease = enter(d, "j1", left(750));
        time.advanceTimeBy(Duration.ofMillis(750));
        assertThat(lease.get()).isNotNull();
        assertThat(share.snapshot("lab:*", LIMITS).block().inFlight()).isEqualTo(1);
        d.finish(lease.get(), AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).subscribe();
        time.advanceTime();
        assertThat(share.snapshot("lab:*", LIMITS).block().inFlight())
                .as("released where it was taken")
                .isZero();
    }

    /** A job with no budget (already sent once, pushed back by a 429) keeps the loop's own timeout and retries. */
    @Test
    void withoutABudgetTheLoopWaitsItsOwnTimeout() {
        AtomicReference<Lease> lease = enter(dispatcher(stalled), "j1", DecisionBudget.UNLIMITED);
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(lease.get()).isNull();
        assertThat(onShare.get()).isZero();
    }

    /**
     * The slices' refresh sent just before Redis stalled: a request waiting on it is let go as soon
     * as any call marks the store down, not when the refresh's own timeout ends.
     */
    @Test
    void aSharedCallInFlightEndsOnTheShareWhenAnotherCallMarksTheStoreDown() {
        StoreState state = new StoreState(true, clock::millis);
        FallbackProviderBudgetStore fallback = new FallbackProviderBudgetStore(
                stalled, clock, state, Duration.ofMillis(500), 4, new SimpleMeterRegistry());
        AtomicReference<BudgetSnapshot> seen = new AtomicReference<>();
        fallback.snapshot("lab:*", LIMITS).subscribe(seen::set);
        time.advanceTimeBy(Duration.ofMillis(120));
        assertThat(seen.get()).isNull();
        state.failed(new IllegalStateException("the quota's call timed out"));
        assertThat(seen.get()).as("answered from the share at once").isNotNull();
        assertThat(seen.get().limits().requestsPerMinute()).isEqualTo(LIMITS.requestsPerMinute() / 4);
    }
}
