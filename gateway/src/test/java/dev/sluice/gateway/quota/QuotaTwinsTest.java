package dev.sluice.gateway.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.config.TierModels;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.store.LuaScripts;
import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts are {@link TenantWindows} in Redis: random sequences of charges and
 * corrections, with the edge values a hostile client or provider can send among them (0, 1,
 * 2^53, 2^63-1, and deltas of ±2^63), give the same answers from both stores, step by step.
 */
class QuotaTwinsTest {
    static final long[] EDGES = {
        0, 1, 1L << 53, (1L << 53) + 1, Long.MAX_VALUE, SlidingWindow.MAX_AMOUNT, SlidingWindow.MAX_AMOUNT + 1
    };
    static final long[] EDGE_DELTAS = {0, 1, -1, 1L << 53, -(1L << 53), Long.MAX_VALUE, Long.MIN_VALUE, -Long.MAX_VALUE
    };

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 42, 2024})
    void theRedisScriptsAnswerExactlyAsTheCoreEvenAtTheEdges(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        QuotaStore memory = new InMemoryQuotaStore(clock);
        QuotaStore redis = new ClockedRedisQuotaStore(TestRedisTemplates.template(), clock);
        String tenant = "twin-" + UUID.randomUUID();
        List<WindowLimit> windows = List.of(
                new WindowLimit("minute", 60, 20_000, 40),
                new WindowLimit("hour", 3600, 60_000, 200),
                new WindowLimit("huge", 120, Long.MAX_VALUE, Long.MAX_VALUE));
        List<Long> chargedAt = new ArrayList<>();
        for (int step = 0; step < 250; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            int op = random.nextInt(10);
            String what = "step " + step + " op " + op;
            if (op < 5) {
                long tokens = random.nextInt(6) == 0 ? EDGES[random.nextInt(EDGES.length)] : 1 + random.nextInt(3_000);
                long requests = random.nextInt(10) == 0 ? EDGES[random.nextInt(EDGES.length)] : 1;
                QuotaDecision m =
                        memory.acquire(tenant, windows, tokens, requests).block();
                QuotaDecision r =
                        redis.acquire(tenant, windows, tokens, requests).block();
                assertThat(r).as(what + " acquire " + tokens + "/" + requests).isEqualTo(m);
                if (m.admitted()) chargedAt.add(m.nowMs());
            } else if (op < 9 && !chargedAt.isEmpty()) {
                long at = chargedAt.get(random.nextInt(chargedAt.size()));
                boolean edge = random.nextInt(3) == 0;
                long dT = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : random.nextInt(4_000) - 3_000;
                long dR = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : 0;
                memory.adjust(tenant, windows, at, dT, dR).block();
                redis.adjust(tenant, windows, at, dT, dR).block();
            } else {
                long negative = -1 - random.nextInt(1000);
                assertThatThrownBy(() ->
                                memory.acquire(tenant, windows, negative, 1).block())
                        .as(what)
                        .isNotNull();
                assertThatThrownBy(() ->
                                redis.acquire(tenant, windows, negative, 1).block())
                        .as(what)
                        .isNotNull();
            }
            assertThat(redis.peek(tenant, windows).block())
                    .as(what)
                    .isEqualTo(memory.peek(tenant, windows).block());
        }
    }

    /**
     * The same with a tier's per-model windows: each request names one of three models (one with a
     * window capping tokens only, one at 2^63-1, one with none), is charged in the tier's windows and
     * its model's in one step, and is corrected in those same windows.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 99})
    void perModelWindowsAnswerExactlyAsTheCoreEvenAtTheEdges(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        QuotaStore memory = new InMemoryQuotaStore(clock);
        QuotaStore redis = new ClockedRedisQuotaStore(TestRedisTemplates.template(), clock);
        String tenant = "twin-models-" + UUID.randomUUID();
        List<WindowLimit> tier =
                List.of(new WindowLimit("minute", 60, 20_000, 40), new WindowLimit("hour", 3600, 60_000, 200));
        TierModels models = new TierModels(
                null,
                Map.of(
                        "gpt-4o", new TierModels.ModelWindow(6_000, Long.MAX_VALUE),
                        "huge", new TierModels.ModelWindow(Long.MAX_VALUE, 7)));
        String[] names = {"gpt-4o", "huge", "gpt-4o-mini"};
        List<Long> chargedAt = new ArrayList<>();
        List<String> chargedModel = new ArrayList<>();
        for (int step = 0; step < 250; step++) {
            clock.advance(random.nextInt(random.nextInt(8) == 0 ? 15_000 : 900));
            String model = names[random.nextInt(names.length)];
            List<WindowLimit> windows = models.windowsFor(tier, model);
            String what = "step " + step + " " + model;
            if (random.nextInt(10) < 6 || chargedAt.isEmpty()) {
                long tokens = random.nextInt(6) == 0 ? EDGES[random.nextInt(EDGES.length)] : 1 + random.nextInt(3_000);
                QuotaDecision m = memory.acquire(tenant, windows, tokens, 1).block();
                QuotaDecision r = redis.acquire(tenant, windows, tokens, 1).block();
                assertThat(r).as(what + " acquire " + tokens).isEqualTo(m);
                if (m.admitted()) {
                    chargedAt.add(m.nowMs());
                    chargedModel.add(model);
                }
            } else {
                int i = random.nextInt(chargedAt.size());
                List<WindowLimit> charged = models.windowsFor(tier, chargedModel.get(i));
                boolean edge = random.nextInt(3) == 0;
                long dT = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : random.nextInt(4_000) - 3_000;
                memory.adjust(tenant, charged, chargedAt.get(i), dT, 0).block();
                redis.adjust(tenant, charged, chargedAt.get(i), dT, 0).block();
            }
            for (String n : names) {
                List<WindowLimit> w = models.windowsFor(tier, n);
                assertThat(redis.peek(tenant, w).block())
                        .as(what + " peek " + n)
                        .isEqualTo(memory.peek(tenant, w).block());
            }
        }
    }

    /**
     * The same with spend budgets: a day of 50,000 micro-dollars and a month at 2^63-1, in a zone
     * with DST, over random charges, costs at the edges (0, 1, 2^53, 2^63-1), settlements with edge
     * deltas, and jumps across the day's turn: the Lua counters answer exactly as {@link SpendCounters}.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77, 2026})
    void spendBudgetsAnswerExactlyAsTheCoreEvenAtTheEdges(long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(1_800_000_000_000L + random.nextInt(60_000));
        QuotaStore memory = new InMemoryQuotaStore(clock);
        QuotaStore redis = new ClockedRedisQuotaStore(TestRedisTemplates.template(), clock);
        String tenant = "twin-spend-" + UUID.randomUUID();
        List<WindowLimit> windows = List.of(new WindowLimit("minute", 60, 200_000, 400));
        java.time.ZoneId zone = java.time.ZoneId.of("Europe/Paris");
        long[] caps = {50_000, Long.MAX_VALUE};
        List<Long> chargedAt = new ArrayList<>();
        List<List<SpendLimit>> chargedIn = new ArrayList<>();
        for (int step = 0; step < 250; step++) {
            int jump = random.nextInt(12);
            clock.advance(jump == 0 ? 6 * 3_600_000L : random.nextInt(jump == 1 ? 1_800_000 : 900));
            CalendarPeriod day = CalendarPeriod.day(clock.millis(), zone);
            CalendarPeriod month = CalendarPeriod.month(clock.millis(), zone);
            List<SpendLimit> spends = List.of(
                    new SpendLimit("spend:day:" + day.label(), "day", caps[0], day.endMs()),
                    new SpendLimit("spend:month:" + month.label(), "month", caps[1], month.endMs()));
            String what = "step " + step;
            int op = random.nextInt(10);
            if (op < 6 || chargedAt.isEmpty()) {
                long cost = random.nextInt(5) == 0 ? EDGES[random.nextInt(EDGES.length)] : random.nextInt(9_000);
                long tokens = 1 + random.nextInt(50);
                QuotaDecision m =
                        memory.acquire(tenant, windows, spends, tokens, 1, cost).block();
                QuotaDecision r =
                        redis.acquire(tenant, windows, spends, tokens, 1, cost).block();
                assertThat(r).as(what + " acquire costing " + cost).isEqualTo(m);
                if (m.admitted()) {
                    chargedAt.add(m.nowMs());
                    chargedIn.add(spends);
                }
            } else if (op < 9) {
                int i = random.nextInt(chargedAt.size());
                boolean edge = random.nextInt(3) == 0;
                long dM = edge ? EDGE_DELTAS[random.nextInt(EDGE_DELTAS.length)] : random.nextInt(10_000) - 7_000;
                memory.adjust(tenant, List.of(), chargedIn.get(i), chargedAt.get(i), 0, 0, dM)
                        .block();
                redis.adjust(tenant, List.of(), chargedIn.get(i), chargedAt.get(i), 0, 0, dM)
                        .block();
            } else {
                assertThatThrownBy(() -> memory.acquire(tenant, windows, spends, 1, 1, -1)
                                .block())
                        .isNotNull();
                assertThatThrownBy(() ->
                                redis.acquire(tenant, windows, spends, 1, 1, -1).block())
                        .isNotNull();
            }
            assertThat(redis.peek(tenant, List.of(), spends).block().spends())
                    .as(what)
                    .isEqualTo(memory.peek(tenant, List.of(), spends).block().spends());
        }
    }

    @Test
    void theAcquireScriptItselfRefusesNegativeAmounts() {
        @SuppressWarnings("rawtypes")
        RedisScript<List> acquire = LuaScripts.load(List.class, "quota_acquire");
        String key = RedisQuotaStore.key("twin-" + UUID.randomUUID(), "minute");
        for (String[] amounts : new String[][] {{"-1", "1"}, {"1", "-1"}, {"x", "1"}}) {
            assertThatThrownBy(() -> TestRedisTemplates.template()
                            .execute(
                                    acquire,
                                    List.of(key),
                                    List.of("1800000000000", amounts[0], amounts[1], "60000", "1000:10"))
                            .blockFirst())
                    .hasStackTraceContaining("amounts must not be negative");
        }
        assertThat(TestRedisTemplates.template().hasKey(key).block()).isFalse();
    }
}
