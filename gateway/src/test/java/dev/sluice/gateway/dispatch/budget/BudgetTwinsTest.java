package dev.sluice.gateway.dispatch.budget;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.SlidingWindow;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Lua scripts are {@link ProviderBudget} in Redis: random sequences of every operation,
 * over minutes of fake time, give the same answers from both stores, step by step.
 */
class BudgetTwinsTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 42, 2024})
    void theRedisScriptsAnswerExactlyAsTheCore(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        ProviderBudgetStore memory = new InMemoryProviderBudgetStore(clock);
        ProviderBudgetStore redis = new RedisProviderBudgetStore(TestRedisTemplates.template(), clock);
        String key = "twin" + UUID.randomUUID() + ":*";
        // Charges stamped ahead of now too (the count delay), up to a whole slot.
        BudgetLimits limits =
                new BudgetLimits(40, 20_000, 6, 20_000, 0, 0, new long[] {0, 250, 1000}[(int) (seed % 3)]);
        List<String> leases = new ArrayList<>();
        List<Long> chargedAt = new ArrayList<>();
        for (int step = 0; step < 250; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            int op = random.nextInt(10);
            String what = "step " + step + " op " + op;
            if (op < 5) {
                long tokens = random.nextInt(10) == 0 ? 25_000 : 1 + random.nextInt(3_000);
                String id = "l" + step;
                BudgetDecision m =
                        memory.tryAcquire(key, limits, Acquire.of(tokens, id)).block();
                BudgetDecision r =
                        redis.tryAcquire(key, limits, Acquire.of(tokens, id)).block();
                assertThat(r).as(what).isEqualTo(m);
                if (m.admitted()) {
                    leases.add(id);
                    chargedAt.add(m.chargedAtMs());
                }
            } else if (op < 7 && !leases.isEmpty()) {
                String id = leases.remove(random.nextInt(leases.size()));
                assertThat(redis.release(key, id).block())
                        .as(what)
                        .isEqualTo(memory.release(key, id).block());
            } else if (op == 7 && !chargedAt.isEmpty()) {
                long at = chargedAt.get(random.nextInt(chargedAt.size()));
                long delta = random.nextInt(4_000) - 3_000;
                if (random.nextBoolean()) {
                    memory.adjust(key, at, AmountsDelta.tokens(delta)).block();
                    redis.adjust(key, at, AmountsDelta.tokens(delta)).block();
                } else { // settled, the charge moved up to a few seconds later (or not at all)
                    long countedBy = random.nextInt(4) == 0 ? Long.MIN_VALUE : at + random.nextInt(5_000) - 1_000;
                    long charged = 1 + random.nextInt(3_000);
                    memory.settle(key, at, countedBy, charged, delta).block();
                    redis.settle(key, at, countedBy, charged, delta).block();
                }
            } else if (op == 8) {
                long pause = random.nextInt(5_000);
                assertThat(redis.pause(key, pause).block())
                        .as(what)
                        .isEqualTo(memory.pause(key, pause).block());
            } else {
                long remT = random.nextInt(3) == 0 ? -1 : random.nextInt(20_000);
                long remR = random.nextInt(3) == 0 ? -1 : random.nextInt(40);
                long reset = random.nextInt(90_000);
                memory.correct(key, limits, remR, remT, reset).block();
                redis.correct(key, limits, remR, remT, reset).block();
            }
            assertThat(redis.snapshot(key, limits).block())
                    .as(what)
                    .isEqualTo(memory.snapshot(key, limits).block());
        }
    }

    static final long[] EDGES = {0, 1, 1L << 53, Long.MAX_VALUE, SlidingWindow.MAX_AMOUNT};
    static final long[] EDGE_DELTAS = {0, 1, -1, 1L << 53, -(1L << 53), Long.MAX_VALUE, Long.MIN_VALUE};

    /** The same, with the edge values an upstream or a hostile request can bring in every argument. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 99})
    void theTwinsAgreeOnEdgeValuesToo(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        ProviderBudgetStore memory = new InMemoryProviderBudgetStore(clock);
        ProviderBudgetStore redis = new RedisProviderBudgetStore(TestRedisTemplates.template(), clock);
        String key = "twin" + UUID.randomUUID() + ":*";
        List<BudgetLimits> limits = List.of(
                new BudgetLimits(40, 20_000, 6, 20_000), new BudgetLimits(Long.MAX_VALUE, Long.MAX_VALUE, 6, 20_000));
        List<Long> chargedAt = new ArrayList<>();
        for (int step = 0; step < 200; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            BudgetLimits l = limits.get(random.nextInt(limits.size()));
            int op = random.nextInt(8);
            String what = "step " + step + " op " + op;
            if (op < 3) {
                long tokens = random.nextBoolean() ? EDGES[random.nextInt(EDGES.length)] : 1 + random.nextInt(3_000);
                String id = "l" + step;
                BudgetDecision m =
                        memory.tryAcquire(key, l, Acquire.of(tokens, id)).block();
                BudgetDecision r =
                        redis.tryAcquire(key, l, Acquire.of(tokens, id)).block();
                assertThat(r).as(what + " acquire " + tokens).isEqualTo(m);
                if (m.admitted()) {
                    chargedAt.add(m.chargedAtMs());
                    memory.release(key, id).block();
                    redis.release(key, id).block();
                }
            } else if (op < 5 && !chargedAt.isEmpty()) {
                long at = chargedAt.get(random.nextInt(chargedAt.size()));
                long dT = EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)];
                long dR = EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)];
                memory.adjust(key, at, new AmountsDelta(dR, dT, 0, 0)).block();
                redis.adjust(key, at, new AmountsDelta(dR, dT, 0, 0)).block();
            } else if (op == 5) {
                long pause =
                        random.nextBoolean() ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : random.nextInt(5_000);
                assertThat(redis.pause(key, pause).block())
                        .as(what + " pause " + pause)
                        .isEqualTo(memory.pause(key, pause).block());
            } else {
                long remT = random.nextBoolean() ? EDGES[random.nextInt(EDGES.length)] : random.nextInt(20_000);
                long remR = random.nextBoolean() ? -1 : random.nextInt(40);
                long reset = EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)];
                memory.correct(key, l, remR, remT, reset).block();
                redis.correct(key, l, remR, remT, reset).block();
            }
            assertThat(redis.snapshot(key, l).block())
                    .as(what)
                    .isEqualTo(memory.snapshot(key, l).block());
        }
    }

    /**
     * The same with input and output windows (a provider that meters them apart), switching
     * between limits with and without them, with ordinary amounts and the edge values a hostile
     * max_tokens or an upstream's usage can bring.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77, 1234})
    void theTwinsAgreeWithInputAndOutputWindows(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        ProviderBudgetStore memory = new InMemoryProviderBudgetStore(clock);
        ProviderBudgetStore redis = new RedisProviderBudgetStore(TestRedisTemplates.template(), clock);
        String key = "twin" + UUID.randomUUID() + ":*";
        List<BudgetLimits> limits = List.of(
                new BudgetLimits(40, Long.MAX_VALUE, 6, 20_000, 12_000, 4_000),
                new BudgetLimits(40, 20_000, 6, 20_000, 0, 4_000),
                new BudgetLimits(40, 20_000, 6, 20_000, 12_000, 0),
                new BudgetLimits(40, 20_000, 6, 20_000),
                new BudgetLimits(Long.MAX_VALUE, Long.MAX_VALUE, 6, 20_000, Long.MAX_VALUE, Long.MAX_VALUE));
        List<String> leases = new ArrayList<>();
        List<Long> chargedAt = new ArrayList<>();
        for (int step = 0; step < 300; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            // Mostly the first budget (Anthropic's shape), now and then another.
            BudgetLimits l = random.nextInt(4) == 0 ? limits.get(random.nextInt(limits.size())) : limits.get(0);
            int op = random.nextInt(10);
            String what = "step " + step + " op " + op + " " + l;
            if (op < 5) {
                long in = random.nextInt(8) == 0 ? EDGES[random.nextInt(EDGES.length)] : random.nextInt(3_000);
                long out = random.nextInt(8) == 0 ? EDGES[random.nextInt(EDGES.length)] : random.nextInt(1_500);
                long tokens = Math.min(SlidingWindow.MAX_AMOUNT, in + out < 0 ? Long.MAX_VALUE : in + out);
                String id = "l" + step;
                BudgetDecision m = memory.tryAcquire(key, l, new Acquire(Amounts.call(tokens, in, out), id, true))
                        .block();
                BudgetDecision r = redis.tryAcquire(key, l, new Acquire(Amounts.call(tokens, in, out), id, true))
                        .block();
                assertThat(r).as(what + " acquire " + in + "/" + out).isEqualTo(m);
                if (m.admitted()) {
                    leases.add(id);
                    chargedAt.add(m.nowMs());
                }
            } else if (op < 7 && !leases.isEmpty()) {
                String id = leases.remove(random.nextInt(leases.size()));
                assertThat(redis.release(key, id).block())
                        .as(what)
                        .isEqualTo(memory.release(key, id).block());
            } else if (op < 9 && !chargedAt.isEmpty()) {
                long at = chargedAt.get(random.nextInt(chargedAt.size()));
                boolean edge = random.nextInt(6) == 0;
                long dT = random.nextBoolean() ? 0 : random.nextInt(2_000) - 1_000;
                long dI = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : random.nextInt(1_000) - 500;
                long dO = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : -random.nextInt(1_500);
                long dR = random.nextInt(10) == 0 ? -1 : 0;
                memory.adjust(key, at, new AmountsDelta(dR, dT, dI, dO)).block();
                redis.adjust(key, at, new AmountsDelta(dR, dT, dI, dO)).block();
            } else {
                // At least a second: Redis expires the pause key on its own clock, which the fake one does not hold.
                long pause = 1_000 + random.nextInt(3_000);
                assertThat(redis.pause(key, pause).block())
                        .as(what)
                        .isEqualTo(memory.pause(key, pause).block());
            }
            assertThat(redis.snapshot(key, l).block())
                    .as(what)
                    .isEqualTo(memory.snapshot(key, l).block());
        }
    }

    /**
     * Replica slices (budget_lease.lua against ProviderBudget.lease): random asks from three
     * replicas, each carrying settlements, the rest of its last slice and its slots, mixed with
     * plain admissions and pauses; every answer and every snapshot the same from both stores.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77, 1234})
    void theSliceScriptAnswersExactlyAsTheCore(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        ProviderBudgetStore memory = new InMemoryProviderBudgetStore(clock);
        ProviderBudgetStore redis = new RedisProviderBudgetStore(TestRedisTemplates.template(), clock);
        String key = "twin-slice" + UUID.randomUUID() + ":*";
        BudgetLimits limits =
                new BudgetLimits(60, 30_000, 8, 20_000, 0, 0, new long[] {0, 250, 1000}[(int) (seed % 3)]);
        String[] replicas = {"a", "b", "c"};
        int[] held = new int[3];
        Amounts[] left = {Amounts.ZERO, Amounts.ZERO, Amounts.ZERO};
        long[] leftAt = new long[3];
        List<Long> chargedAt = new ArrayList<>();
        for (int step = 0; step < 250; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            int op = random.nextInt(10);
            String what = "step " + step + " op " + op;
            if (op < 6) {
                int r = random.nextInt(3);
                List<BudgetSettlement> settlements = new ArrayList<>();
                for (int k = random.nextInt(4); k > 0 && !chargedAt.isEmpty(); k--) {
                    long at = chargedAt.get(random.nextInt(chargedAt.size()));
                    long countedBy = random.nextInt(3) == 0 ? Long.MIN_VALUE : at + random.nextInt(5_000) - 1_000;
                    settlements.add(
                            random.nextBoolean()
                                    ? new BudgetSettlement(
                                            at,
                                            countedBy,
                                            1 + random.nextInt(2_000),
                                            random.nextInt(2_000) - 1_000,
                                            0,
                                            0,
                                            0)
                                    : refund(at, -random.nextInt(500), random.nextInt(4) == 0 ? -1 : 0));
                }
                boolean giveBack = random.nextBoolean();
                Amounts need = random.nextInt(3) == 0 ? Amounts.ZERO : Amounts.call(1 + random.nextInt(3_000), 0, 0);
                Amounts want = new Amounts(random.nextInt(10), random.nextInt(12_000), 0, 0);
                int inUse = random.nextInt(held[r] + 1);
                SliceAsk ask = new SliceAsk(
                        replicas[r],
                        settlements,
                        giveBack ? left[r] : Amounts.ZERO,
                        leftAt[r],
                        need,
                        random.nextBoolean(),
                        want,
                        inUse,
                        held[r],
                        inUse + random.nextInt(4),
                        5_000,
                        random.nextBoolean());
                SliceGrant m = memory.lease(key, limits, ask).block();
                SliceGrant g = redis.lease(key, limits, ask).block();
                assertThat(g).as(what).isEqualTo(m);
                held[r] = m.slotsHeld();
                if (!m.granted().isZero()) {
                    left[r] = m.granted();
                    leftAt[r] = m.chargedAtMs();
                    chargedAt.add(m.chargedAtMs());
                } else if (giveBack) {
                    left[r] = Amounts.ZERO;
                }
            } else if (op < 8) {
                long tokens = 1 + random.nextInt(3_000);
                String id = "l" + step;
                BudgetDecision m =
                        memory.tryAcquire(key, limits, Acquire.of(tokens, id)).block();
                assertThat(redis.tryAcquire(key, limits, Acquire.of(tokens, id)).block())
                        .as(what)
                        .isEqualTo(m);
                if (m.admitted()) chargedAt.add(m.chargedAtMs());
            } else {
                long pause = random.nextInt(3_000);
                assertThat(redis.pause(key, pause).block())
                        .as(what)
                        .isEqualTo(memory.pause(key, pause).block());
            }
            assertThat(redis.snapshot(key, limits).block())
                    .as(what)
                    .isEqualTo(memory.snapshot(key, limits).block());
        }
    }

    /** A correction in the charge's own slot; its tokens are drawn before its requests, so each seed replays the same steps. */
    private static BudgetSettlement refund(long at, long tokens, long requests) {
        return BudgetSettlement.adjust(at, new AmountsDelta(requests, tokens, 0, 0));
    }
}
