package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.quota.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A replica spending from its slice ({@link ReplicaLeases}) over the in-memory store, on a fake
 * clock, the flusher's ticks run by hand: calls cost no store call while the slice covers them,
 * settlements wait for the flush and go together, an idle replica gives everything back.
 */
class ReplicaLeasesTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final BudgetLimits LIMITS = new BudgetLimits(100_000, 10_000_000, 50, 120_000);
    static final String KEY = "p:gpt-4o";
    static final Duration T = Duration.ofSeconds(5);

    final FakeClock clock = new FakeClock(T0);
    final InMemoryProviderBudgetStore inner = new InMemoryProviderBudgetStore(clock);
    final AtomicInteger leaseCalls = new AtomicInteger();
    /** When set, the next lease call answers only once this sink emits (a slow store). */
    volatile Sinks.Empty<Void> hold;

    final ProviderBudgetStore counted = new DelegatingBudgetStore(inner) {
        @Override
        public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
            leaseCalls.incrementAndGet();
            Sinks.Empty<Void> h = hold;
            hold = null;
            return h == null ? inner.lease(key, limits, ask) : h.asMono().then(inner.lease(key, limits, ask));
        }
    };
    final ReplicaLeases leases = new ReplicaLeases(
            counted, Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(20), 64, clock, null);

    BudgetDecision acquire(long tokens, String id) {
        return leases.tryAcquire(KEY, LIMITS, Acquire.of(tokens, id)).block(T);
    }

    BudgetSnapshot shared() {
        return inner.snapshot(KEY, LIMITS).block(T);
    }

    @Test
    void callsAreSpentFromTheSliceWithoutAStoreCallOnceItFollowsTheirPace() {
        // A steady 200 calls a second for 3 s, each ending at once.
        int admitted = 0;
        for (int i = 0; i < 600; i++) {
            clock.set(T0 + i * 5L);
            BudgetDecision d = acquire(100, "c" + i);
            assertThat(d.admitted()).as("call " + i).isTrue();
            admitted++;
            assertThat(leases.release(KEY, "c" + i).block(T)).isTrue();
            if (i % 4 == 3) leases.flushDue();
        }
        assertThat(admitted).isEqualTo(600);
        // Flushes every 20 ms (150) and the first horizon's growth: far fewer than one call each.
        assertThat(leaseCalls.get()).isLessThan(200);
        int afterWarmUp = leaseCalls.get();
        // The slice never covered more than the calls made: in the store, what was spent plus one slice's rest.
        BudgetSnapshot s = shared();
        assertThat(s.usedRequests()).isBetween(600L, 600L + 250);
        assertThat(afterWarmUp).isPositive();
    }

    @Test
    void settlementsWaitForTheFlushAndGoTogetherInOneCall() {
        BudgetDecision a = acquire(100, "a");
        BudgetDecision b = acquire(100, "b");
        int before = leaseCalls.get();
        leases.settle(KEY, a.chargedAtMs(), Long.MIN_VALUE, 100, -40).block(T);
        leases.adjust(KEY, b.chargedAtMs(), AmountsDelta.tokens(-30)).block(T);
        leases.release(KEY, "a").block(T);
        leases.release(KEY, "b").block(T);
        assertThat(leaseCalls.get()).as("nothing sent yet").isEqualTo(before);
        long usedBefore = shared().usedTokens();

        clock.advance(20);
        leases.flushDue();
        assertThat(leaseCalls.get()).as("one call for both").isEqualTo(before + 1);
        assertThat(shared().usedTokens()).isLessThanOrEqualTo(usedBefore - 70);
    }

    @Test
    void aFullBatchGoesAtOnce() {
        BudgetDecision a = acquire(100, "a");
        int before = leaseCalls.get();
        for (int i = 0; i < 64; i++)
            leases.adjust(KEY, a.chargedAtMs(), AmountsDelta.tokens(-1)).block(T);
        assertThat(leaseCalls.get()).isEqualTo(before + 1);
    }

    @Test
    void anIdleReplicaGivesItsSliceAndSpareSlotsBack() {
        for (int i = 0; i < 50; i++) {
            clock.set(T0 + i * 10L);
            assertThat(acquire(100, "c" + i).admitted()).isTrue();
            leases.release(KEY, "c" + i).block(T);
        }
        leases.flushDue();
        assertThat(shared().usedRequests())
                .as("a slice held beyond the calls made")
                .isGreaterThanOrEqualTo(50);

        clock.advance(2_500); // two horizons and more without a call
        leases.flushDue();
        clock.advance(1_000);
        leases.flushDue();
        BudgetSnapshot s = shared();
        assertThat(s.usedRequests()).as("only what was spent").isEqualTo(50);
        assertThat(s.usedTokens()).isEqualTo(5_000);
        assertThat(s.inFlight()).as("no slot held").isZero();
        assertThat(leases.sliceOf(KEY).held()).isZero();
    }

    /**
     * Room the other replicas' lines hold is not taken ahead of this replica's need: their doors
     * promised those calls a start in it. Without the rule, a replica whose line had drained took a
     * slice of what it spent in the last horizon every flush, and the other replica's promises were
     * dropped at their deadline (docs/simulation.md, finding 25).
     */
    @Test
    void aSliceLeavesTheRoomOtherReplicasLinesHold() {
        BudgetLimits tight = new BudgetLimits(100_000, 10_000, 50, 120_000);
        for (int i = 0; i < 20; i++) {
            clock.set(T0 + i * 10L);
            assertThat(leases.tryAcquire(KEY, tight, Acquire.of(100, "c" + i))
                            .block(T)
                            .admitted())
                    .isTrue();
            leases.release(KEY, "c" + i).block(T);
        }
        clock.advance(20);
        leases.flushDue();
        long spent = 2_000;
        assertThat(inner.snapshot(KEY, tight).block(T).usedTokens())
                .as("alone: a slice of the recent pace held ahead")
                .isGreaterThan(spent);

        // The others' lines hold 5,000 of the 8,000 left: what is spare (3,000) is not twice the pace (2,000).
        leases.queuedElsewhere(KEY, new Amounts(5, 5_000, 0, 0));
        clock.advance(1_000); // the slice is a horizon old: the flusher renews it
        int calls = leaseCalls.get();
        leases.flushDue();
        assertThat(leaseCalls.get()).isEqualTo(calls + 1);
        assertThat(inner.snapshot(KEY, tight).block(T).usedTokens())
                .as("only what was spent")
                .isEqualTo(spent);
    }

    @Test
    void theViewCountsTheUnspentSliceAsFree() {
        for (int i = 0; i < 20; i++) {
            assertThat(acquire(100, "c" + i).admitted()).isTrue();
        }
        leases.flushDue();
        BudgetDecision d = acquire(100, "last");
        assertThat(d.snapshot().usedTokens())
                .as("21 calls spent, whatever the slice holds")
                .isEqualTo(2_100);
        assertThat(d.snapshot().inFlight()).isEqualTo(21);
        assertThat(leases.snapshot(KEY, LIMITS).block(T).usedTokens()).isEqualTo(2_100);
    }

    @Test
    void aPauseThisReplicaSetsStopsItsSliceAtOnce() {
        for (int i = 0; i < 10; i++) acquire(100, "c" + i);
        leases.pause(KEY, 5_000).block(T);
        BudgetDecision d = acquire(100, "after");
        assertThat(d.admitted()).isFalse();
        assertThat(d.refusal()).isEqualTo(BudgetRefusal.PAUSED);
    }

    @Test
    void aCallSpentLateFromAnEarlySliceMovesToWhenItCouldBeCounted() {
        for (int i = 0; i < 10; i++) acquire(100, "c" + i); // the slice grows to the pace
        clock.advance(700);
        BudgetDecision late = acquire(100, "late");
        assertThat(late.admitted()).isTrue();
        assertThat(late.chargedAtMs()).as("the slice's stamp").isLessThan(late.nowMs());
        assertThat(late.countsFromMs()).isEqualTo(late.nowMs());
    }

    @Test
    void aCallerThatGivesUpWhileARefreshIsUnderWayDoesNotHoldTheFlusherOff() {
        BudgetDecision a = acquire(100, "a");
        leases.adjust(KEY, a.chargedAtMs(), AmountsDelta.tokens(-10)).block(T);
        Sinks.Empty<Void> slow = Sinks.empty();
        hold = slow;
        clock.advance(50);
        leases.flushDue(); // the refresh hangs on the slow store
        // A call arrives meanwhile, waits on the refresh, and its caller gives up (a timeout cancels it).
        leases.tryAcquire(KEY, LIMITS, Acquire.of(100, "b")).subscribe().dispose();
        slow.tryEmitEmpty();

        int before = leaseCalls.get();
        leases.adjust(KEY, a.chargedAtMs(), AmountsDelta.tokens(-10)).block(T);
        clock.advance(50);
        leases.flushDue();
        assertThat(leaseCalls.get()).as("the next batch still goes on time").isEqualTo(before + 1);
    }
}
