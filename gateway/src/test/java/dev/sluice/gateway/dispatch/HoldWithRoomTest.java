package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import dev.sluice.gateway.dispatch.lease.Lease;
import dev.sluice.gateway.dispatch.queue.Job;
import dev.sluice.gateway.dispatch.queue.JobClass;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneShare.View;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.quota.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The fleet's hold where the room holds every lane's turns ({@link dev.sluice.gateway.dispatch.queue.RoomLevel}):
 * a lane far ahead of another replica's lowest goes as far as the room free now reaches once that lane's share
 * is set aside, and no further. A real dispatcher and door; the other replica is its share's view.
 */
class HoldWithRoomTest {
    /** 13 slots, and tokens by far: the slots are the room. Slack: 120,000 / 50 = 2,400 counter units. */
    static final BudgetLimits THIRTEEN_SLOTS = new BudgetLimits(600, 120_000, 13, 60_000);

    static final long MAX_WAIT_MS = 60_000;
    static final long PAGE = 100;

    final FakeClock clock = new FakeClock(1_000_000);
    final Scheduler loop = Schedulers.newSingle("hold-with-room-test", true);
    final ProviderDispatcher dispatcher = new ProviderDispatcher(DispatcherSettings.of(
                    "lab:*",
                    new InMemoryProviderBudgetStore(clock),
                    () -> THIRTEEN_SLOTS,
                    clock,
                    loop,
                    new SimpleMeterRegistry())
            .withAimd(new AimdLimit(AimdLimit.Settings.startingAt(13)))
            .withQueue(100, 0.1));
    final AtomicReference<Mono<View>> answer = new AtomicReference<>();
    final LaneShare share = (key, replica, nowMs, lanes, demand, terms) -> answer.get();
    final LaneSharing sharing = new LaneSharing(
            () -> List.of(dispatcher),
            share,
            () -> true,
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            clock);
    final List<AtomicReference<Object>> pages = new ArrayList<>();

    @AfterEach
    void stop() {
        loop.dispose();
    }

    /**
     * Tenant a, here, stands 10,000 counter units on (four slacks past the other replica's lowest lane): x,
     * elsewhere at counter 0 with {@code xPages} pages queued. a's first page holds a slot; four more wait.
     */
    void aFarAheadOfX(int xPages, Map<String, LaneShare.Demand> elsewhere) {
        Lease first = dispatcher.submit(page("a0"), MAX_WAIT_MS).block(Duration.ofSeconds(5));
        assertThat(first).isNotNull();
        answer.set(Mono.just(new View(OptionalLong.of(0), Map.of("a", 10_000L), elsewhere)));
        tick(); // a's counter, and the hold for x
        for (int i = 1; i <= 4; i++) {
            AtomicReference<Object> p = new AtomicReference<>();
            dispatcher.submit(page("a" + i), MAX_WAIT_MS).subscribe(p::set, p::set);
            pages.add(p);
        }
        tick();
    }

    Job page(String id) {
        long now = clock.millis();
        return Job.of(id, "a", 1, JobClass.INTERACTIVE, PAGE, now, now + MAX_WAIT_MS);
    }

    static Map<String, LaneShare.Demand> xWaits(int pages) {
        return Map.of("x", new LaneShare.Demand("x", 1, pages * PAGE, 0, 0, 0, pages));
    }

    long sent() {
        return pages.stream().filter(p -> p.get() instanceof Lease).count();
    }

    void tick() {
        sharing.tick().block(Duration.ofSeconds(5));
        Mono.fromRunnable(() -> {}).subscribeOn(loop).block(Duration.ofSeconds(5)); // what the answer scheduled has run
    }

    @Test
    void aLaneFarAheadGoesAsFarAsTheRoomLeftOnceTheLaggingLanesShareIsSetAside() {
        // 12 slots free; x's 10 pages first; a's next two fit beside them, the other two would take x's.
        aFarAheadOfX(10, xWaits(10));
        await().atMost(Duration.ofSeconds(5)).until(() -> sent() == 2);
        tick();
        assertThat(sent()).as("a's last two pages wait for x's").isEqualTo(2);
    }

    @Test
    void roomForEveryonesQueueHoldsNobody() {
        aFarAheadOfX(5, xWaits(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> sent() == 4);
    }

    @Test
    void withoutTheOtherReplicasDemandTheHoldStands() {
        // Where x's queue is not said (a replica of an earlier version), its share of the room is unknown.
        aFarAheadOfX(10, Map.of("x", new LaneShare.Demand("x", 1, 10 * PAGE, 0, 0)));
        tick();
        assertThat(sent()).isZero();
    }
}
