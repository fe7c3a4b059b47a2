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
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneShare.Report;
import dev.sluice.gateway.dispatch.queue.LaneShare.View;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** A replica's ticks: when it calls the store, what it reports, and what the answer (or its absence) does to its line. */
class LaneSharingTest {
    static final BudgetLimits ONE_AT_A_TIME = new BudgetLimits(600, 120_000, 1, 60_000);
    static final long MAX_WAIT_MS = 60_000;

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("lane-sharing-test", true);
    final ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                    "lab:*",
                    new InMemoryProviderBudgetStore(clock),
                    () -> ONE_AT_A_TIME,
                    clock,
                    loop,
                    new SimpleMeterRegistry())
            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(1)))
            .withQueue(100, 0.1));
    final List<List<Report>> calls = new CopyOnWriteArrayList<>();
    final AtomicReference<Mono<View>> answer = new AtomicReference<>(Mono.just(View.ALONE));
    final List<List<LaneShare.Demand>> demands = new CopyOnWriteArrayList<>();
    final LaneShare share = (key, replica, nowMs, lanes, demand, terms) -> {
        calls.add(lanes);
        demands.add(demand);
        return answer.get();
    };
    boolean storeUp = true;
    final LaneSharing sharing = new LaneSharing(
            () -> List.of(dispatcher),
            share,
            () -> storeUp,
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            clock);

    @AfterEach
    void stop() {
        loop.dispose();
    }

    Job page(String id, String tenant) {
        long now = clock.millis();
        return Job.of(id, tenant, 1, JobClass.INTERACTIVE, 100, now, now + MAX_WAIT_MS);
    }

    /** a's page takes the one slot; b's waits in line. */
    Lease oneServedOneWaiting(AtomicReference<Object> b) {
        Lease first = dispatcher.submit(page("a1", "a"), MAX_WAIT_MS).block(Duration.ofSeconds(5));
        dispatcher.submit(page("b1", "b"), MAX_WAIT_MS).subscribe(b::set, b::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.depth() == 1);
        return first;
    }

    /**
     * b's page waits in line, the slot free, held back: another replica's lane waits a million
     * counter units behind.
     */
    AtomicReference<Object> heldForALaneFarBehindElsewhere() {
        AtomicReference<Object> b = new AtomicReference<>();
        Lease first = oneServedOneWaiting(b);
        answer.set(Mono.just(new View(OptionalLong.of(-1_000_000), Map.of("b", 0L))));
        tick();
        dispatcher.finish(first, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        tick();
        assertThat(b.get())
                .as("held back: the slot is free, but a tenant elsewhere is far behind")
                .isNull();
        return b;
    }

    /**
     * Another replica's line as a view: tenant x waits there at the lowest counter, its next job told to
     * start {@code dueInMs} from the report (negative: that time has come).
     */
    Mono<View> elsewhereDueIn(long dueInMs) {
        return Mono.just(new View(
                OptionalLong.of(0),
                Map.of("b", 0L),
                Map.of("x", new LaneShare.Demand("x", 1, 100, 0, 0, 0, 1, dueInMs))));
    }

    /** b's page, told to wait for a's call, waits in line; a's call ends under {@code view}. */
    AtomicReference<Object> bWaitingWhenTheSlotFrees(Mono<View> view) {
        AtomicReference<Object> b = new AtomicReference<>();
        Lease first = oneServedOneWaiting(b);
        answer.set(view);
        tick();
        dispatcher.finish(first, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        tick();
        return b;
    }

    @Test
    void aPagePromisedLaterWaitsWhileAnotherReplicasPromiseHasComeButNotForEver() {
        // The room a's call frees is seen here first; x's turn, promised at the other replica, has come.
        AtomicReference<Object> b = bWaitingWhenTheSlotFrees(elsewhereDueIn(-100));
        assertThat(b.get()).as("b was told to start later than x").isNull();
        // 3 s on, b's own promised start (a call's time after it asked) has come, and so has the end of the pump's
        // patience with room: either lets it go, under a fresh view that still says x waits. Which one does is
        // FairQueueSharingTest's (a lane goes once its own promise has come).
        clock.advance(3_000);
        tick();
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() instanceof Lease);
    }

    @Test
    void anotherReplicasPromiseNotYetComeHoldsNoOne() {
        AtomicReference<Object> b = bWaitingWhenTheSlotFrees(elsewhereDueIn(60_000));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() instanceof Lease);
    }

    @Test
    void dueWorkFarOnInCounterOrderIsNotWaitedFor() {
        // x is due, but a hundred thousand counter units past the lowest lane: its own replica holds it by
        // counter, and waiting for it here would leave both replicas waiting on each other.
        AtomicReference<Object> b = bWaitingWhenTheSlotFrees(Mono.just(new View(
                OptionalLong.of(0),
                Map.of("b", 0L),
                Map.of("x", new LaneShare.Demand("x", 1, 100, 0, 0, 100_000, 1, -100)))));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() instanceof Lease);
    }

    void tick() {
        sharing.tick().block(Duration.ofSeconds(5));
        Mono.fromRunnable(() -> {}).subscribeOn(loop).block(Duration.ofSeconds(5)); // what the answer scheduled has run
    }

    @Test
    void aBudgetWithNothingWaitingAndNothingServedMakesNoCall() {
        tick();
        assertThat(calls).isEmpty();
    }

    @Test
    void reportsTheServiceAndTheWaitingLanesThenOnceMoreWhenTheLineDrainsThenNothing() {
        AtomicReference<Object> b = new AtomicReference<>();
        Lease first = oneServedOneWaiting(b);
        tick();
        assertThat(calls).containsExactly(List.of(new Report("a", 100, false), new Report("b", 0, true)));
        dispatcher.finish(first, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() != null);
        tick();
        assertThat(calls.get(1)).containsExactly(new Report("b", 100, false));
        tick();
        tick();
        assertThat(calls).hasSize(2);
        // Both were admitted: no unmet demand to tell, only b's queued page while it waited.
        assertThat(demands)
                .allSatisfy(d -> assertThat(d)
                        .allSatisfy(x -> assertThat(x.askedTokens()).isZero()));
        assertThat(demands.get(0)).extracting(LaneShare.Demand::tenant).containsExactly("b");
    }

    @Test
    void aLaneAheadOfOneWaitingElsewhereWaitsUntilTheOtherIsServed() {
        AtomicReference<Object> b = heldForALaneFarBehindElsewhere();
        answer.set(Mono.just(View.ALONE)); // the other replica's line drained
        tick();
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() != null);
        assertThat(b.get()).isInstanceOf(Lease.class);
    }

    @Test
    void aShareThatFailsHoldsNothingBackAndItsServiceGoesWithTheNext() {
        AtomicReference<Object> b = new AtomicReference<>();
        Lease first = oneServedOneWaiting(b);
        answer.set(Mono.just(new View(OptionalLong.of(-1_000_000), Map.of("b", 0L))));
        tick();
        answer.set(Mono.error(new IllegalStateException("Redis went away")));
        tick();
        assertThat(calls.get(1)).containsExactly(new Report("b", 0, true));
        dispatcher.finish(first, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() != null);
        answer.set(Mono.just(View.ALONE));
        tick();
        assertThat(calls.get(2))
                .as("b's service, lost with the failed call, reported now")
                .containsExactly(new Report("b", 100, false));
    }

    @Test
    void whileTheStoreIsDownNoCallIsMadeAndNothingIsHeldBack() {
        AtomicReference<Object> b = new AtomicReference<>();
        Lease first = oneServedOneWaiting(b);
        answer.set(Mono.just(new View(OptionalLong.of(-1_000_000), Map.of("b", 0L))));
        tick();
        storeUp = false;
        tick();
        assertThat(calls).hasSize(1);
        dispatcher.finish(first, AimdLimit.Outcome.SUCCESS, 0, Long.MIN_VALUE).block(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() != null);
        assertThat(b.get()).isInstanceOf(Lease.class);
    }
    /**
     * A replica that took a burst before its first tick confirmed its door's promises on the budget
     * alone (nothing shared yet), and two doors promised the same minute: the random worlds' judged
     * crowd, seed 6, had 15 pages promised 0.3-0.45 s dropped after 3 s. A dispatcher of a fleet
     * that shares its lanes waits for the fleet's view from its first request.
     */
    /**
     * A hold is for the lagging replica to take the next room, not for nobody to: on the packaged
     * gateway the second replica held every lane for 2 s at a burst's start while the first took
     * 2 s over its first store calls, the provider idle.
     */
    @Test
    void aLaneHeldForAnotherReplicasLaneThatDoesNotMoveGoesOnceThePatienceIsOver() {
        AtomicReference<Object> b = heldForALaneFarBehindElsewhere();
        clock.advance(499);
        tick();
        assertThat(b.get())
                .as("within the patience (half the view's life of 1 s)")
                .isNull();
        clock.advance(1);
        tick();
        await().atMost(Duration.ofSeconds(5)).until(() -> b.get() != null);
        assertThat(b.get()).isInstanceOf(Lease.class);
    }

    @Test
    void aLaneHeldForAnotherReplicasLaneThatMovesStaysHeld() {
        AtomicReference<Object> b = heldForALaneFarBehindElsewhere();
        for (int i = 1; i <= 5; i++) { // the other replica serves its lane: its counter climbs at every share
            answer.set(Mono.just(new View(OptionalLong.of(-1_000_000 + i * 1_000L), Map.of("b", 0L))));
            clock.advance(200);
            tick();
        }
        assertThat(b.get())
                .as("a second past the hold: still held, the lane elsewhere is being served")
                .isNull();
    }

    @Test
    void aPromiseMadeBeforeTheFirstShareIsNotConfirmedOnTheBudgetAlone() {
        dispatcher.sharesLanes(); // as Dispatchers.shareLanes() does for a fleet sharing its lanes, before any tick
        List<AtomicReference<Object>> pages = new CopyOnWriteArrayList<>();
        for (int i = 1; i <= 25; i++) {
            AtomicReference<Object> answered = new AtomicReference<>();
            pages.add(answered);
            dispatcher.submit(page("a" + i, "a"), MAX_WAIT_MS).subscribe(answered::set, answered::set);
        }
        // One slot, calls of 2 s until answers say: the 24 waiting are promised starts of 2-48 s.
        await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.depth() == 24);
        clock.advance(600); // past the burst's span: from here only an unconfirmed promise is reviewed
        Mono.fromCallable(() -> dispatcher.reviewPromises(clock.millis()))
                .subscribeOn(loop)
                .block(Duration.ofSeconds(5)); // a store view that shows nothing new

        // The first share: another replica's tenant, ahead of a in counter order, has 100 pages waiting there.
        answer.set(Mono.just(new View(
                OptionalLong.empty(),
                Map.of(),
                Map.of("b", new LaneShare.Demand("b", 1, 10_000, 0, 0, -1L << 40, 100)))));
        clock.advance(500);
        tick();

        assertThat(pages.stream().filter(p -> p.get() instanceof GatewayBusyException))
                .as("promises the fleet's lines no longer keep are told at once, not after their wait")
                .isNotEmpty();
    }
}
