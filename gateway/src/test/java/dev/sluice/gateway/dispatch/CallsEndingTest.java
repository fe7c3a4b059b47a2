package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.DelegatingBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.DoorDecision;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.store.DecisionBudget;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The door knows when this replica's calls in flight end: a mean hold (2 s until answers say)
 * after each was taken, no sooner than the provider's time after it was sent (from now while it
 * has not been), and "now" for one past it or being given back. A burst's calls, taken
 * together, free their slots together ({@code SendTime.slots}). Another replica's calls end as the
 * window's latest charges say ({@code BudgetSnapshot.callsEnding}), never sooner than spread evenly
 * over a mean call; and a door reads the budget once before its first word ({@code BudgetCache.seenOnce}).
 */
class CallsEndingTest {
    static final BudgetLimits FOUR_SLOTS = new BudgetLimits(600, 120_000, 4, 60_000);

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("calls-ending-test", true);
    final Scheduler otherLoop = Schedulers.newSingle("calls-ending-test-b", true);
    final AtomicInteger snapshots = new AtomicInteger();
    /** One store two replicas share (Redis in production); it counts the budget views it is asked for. */
    final ProviderBudgetStore store = new DelegatingBudgetStore(new InMemoryProviderBudgetStore(clock)) {
        @Override
        public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
            snapshots.incrementAndGet();
            return super.snapshot(key, limits);
        }
    };

    final ProviderDispatcher dispatcher = replica(store, loop);

    ProviderDispatcher replica(ProviderBudgetStore store, Scheduler loop) {
        return new ProviderDispatcher(
                DispatcherSettings.of("lab:*", store, () -> FOUR_SLOTS, clock, loop, new SimpleMeterRegistry())
                        .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(4))));
    }

    @AfterEach
    void stop() {
        loop.dispose();
        otherLoop.dispose();
    }

    /** A lease whose request goes out as it is granted. */
    Lease take(String id) {
        Lease lease = granted(id);
        dispatcher.sent(lease);
        return lease;
    }

    /** A lease granted, its request not yet sent. */
    Lease granted(String id) {
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

    @Test
    void aCallNotYetSentEndsNoSoonerThanAProviderCallFromNowAndItsHopIsLearned() {
        Lease a = granted("a");
        clock.advance(800); // granted, and still in the gateway's own backlog (a cold burst on two cores)
        assertThat(dispatcher.capacity().ending())
                .as("its provider time has not begun: 2 s from now, not 1.2 s")
                .containsExactly(2_000L);

        dispatcher.sent(a); // 800 ms after its grant: the hop rises half-way at once, 0 -> 400 ms
        clock.advance(100);
        assertThat(dispatcher.capacity().ending()).as("2 s from its sending").containsExactly(1_900L);
        dispatcher.sent(a);
        assertThat(dispatcher.capacity().ending()).as("sent once").containsExactly(1_900L);

        Lease b = granted("b");
        clock.advance(100); // 100 ms into a 400 ms hop: 300 ms more to go, then 2 s
        assertThat(dispatcher.capacity().ending()).containsExactly(1_800L, 2_300L);
        clock.advance(500); // past the hop, still not sent: no sooner than 2 s from now
        assertThat(dispatcher.capacity().ending()).containsExactly(1_300L, 2_000L);

        dispatcher.sent(b);
        clock.advance(2_000); // a ends 2.7 s after its sending, 3.5 s after its grant
        dispatcher.finish(a, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        assertThat(dispatcher.capacity().meanCallMs())
                .as("the hold from the grant, as before: half-way from 2 s to 3.5 s")
                .isEqualTo(2_750);
        // b: sent 2 s ago. From its grant (2.6 s ago) a hold of 2.75 s leaves 150 ms; from its sending, the
        // provider's time, now half-way from 2 s to 2.7 s (2.35 s), leaves 350 ms: the later one.
        assertThat(dispatcher.capacity().ending()).containsExactly(350L);
    }

    @Test
    void anotherReplicasBurstEndsACallAfterItWasSentNotOneByOneFromNow() {
        for (String id : List.of("a", "b", "c", "d")) take(id); // replica a fills the four slots at once
        clock.advance(20);
        ProviderDispatcher b = replica(store, otherLoop);
        b.seenOnce(DecisionBudget.UNLIMITED).block(Duration.ofSeconds(5));

        // Sent at 1,000,000-1,000,020 (the middle: 10 ms ago), a mean call of 2 s: about 1,990 ms from now.
        // Spread evenly over a mean call, as before, the first would have freed in 500 ms.
        assertThat(b.capacity().ending()).containsExactly(1_990L, 1_990L, 1_990L, 2_000L);
        long now = clock.millis();
        Job page = Job.of("p", "t2", 1, JobClass.INTERACTIVE, 100, now, now + 60_000);
        DoorDecision word = Mono.fromCallable(() -> b.ask(page, 60_000, now))
                .subscribeOn(otherLoop)
                .block(Duration.ofSeconds(5));
        assertThat(word.accepted()).isTrue();
        assertThat(word.estimatedWaitMs())
                .as("the first slot frees with the burst")
                .isEqualTo(1_990L);
    }

    @Test
    void anotherReplicasCallsEndAsTheWindowDatesThemNeverSoonerThanAnEvenSpread() {
        take("a"); // a long call, sent first
        clock.advance(1_500);
        for (String id : List.of("b", "c", "d")) take(id);
        clock.advance(20);
        ProviderDispatcher b = replica(store, otherLoop);
        b.seenOnce(DecisionBudget.UNLIMITED).block(Duration.ofSeconds(5));
        // The window knows charges to the second: the three in the slot begun 520 ms ago are taken as sent in the
        // middle of it (1,740 ms left of a mean call), the first in the full slot before (980 ms). None is promised
        // sooner than the even spread over a mean call (500, 1,000, 1,500, 2,000 ms): the last is held to 2,000.
        assertThat(b.capacity().ending()).containsExactly(980L, 1_740L, 1_740L, 2_000L);
    }

    @Test
    void aDoorReadsTheBudgetOnceBeforeItsFirstWord() {
        for (String id : List.of("a", "b", "c", "d")) take(id);
        ProviderDispatcher b = replica(store, otherLoop);
        int before = snapshots.get();
        assertThat(b.seen()).isFalse();
        Flux.range(0, 50)
                .flatMap(i -> b.seenOnce(DecisionBudget.UNLIMITED).subscribeOn(Schedulers.parallel()))
                .blockLast(Duration.ofSeconds(5));
        assertThat(snapshots.get() - before)
                .as("one look, shared by all who waited for it")
                .isEqualTo(1);
        assertThat(b.seen()).isTrue();
        assertThat(b.capacity().inFlight()).as("replica a's calls, seen").isEqualTo(4);
        b.seenOnce(DecisionBudget.UNLIMITED).block(Duration.ofSeconds(5));
        assertThat(snapshots.get() - before).as("and none once seen").isEqualTo(1);
    }

    @Test
    void aStoreThatDoesNotAnswerTheFirstLookHoldsNobodyPastTheirBudget() {
        ProviderBudgetStore silent = new DelegatingBudgetStore(new InMemoryProviderBudgetStore(clock)) {
            @Override
            public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
                return Mono.never();
            }
        };
        ProviderDispatcher b = replica(silent, otherLoop);
        AtomicLong waited = new AtomicLong();
        DecisionBudget budget = DecisionBudget.of(Duration.ofMillis(200), waited::get);
        StepVerifier.withVirtualTime(() -> b.seenOnce(budget))
                .expectSubscription()
                .thenAwait(Duration.ofMillis(200))
                .expectComplete() // decided on the view it has, as before: the acquire decides for real
                .verify(Duration.ofSeconds(5));
        assertThat(b.seen()).isFalse();
    }
}
