package dev.sluice.gateway.dispatch.budget.redis;

import dev.sluice.gateway.dispatch.budget.Acquire;
import dev.sluice.gateway.dispatch.budget.Amounts;
import dev.sluice.gateway.dispatch.budget.AmountsDelta;
import dev.sluice.gateway.dispatch.budget.BudgetDecision;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.BudgetRefusal;
import dev.sluice.gateway.dispatch.budget.BudgetSettlement;
import dev.sluice.gateway.dispatch.budget.BudgetSnapshot;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.SliceAsk;
import dev.sluice.gateway.dispatch.budget.SliceGrant;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.LuaScripts;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * Provider budgets in Redis, one budget shared by every replica: one EVALSHA per operation
 * ({@code scripts/budget_*.lua}, each including {@code budget_common.lua} and through it
 * {@code window_lib.lua}), Redis TIME as the clock, and three keys per budget under its hash tag
 * ({@code sluice:b:{default:gpt-4o}:w} window, {@code :l} leases, {@code :p} pause) so Redis
 * Cluster keeps a budget in one slot; two more ({@code :wi} input, {@code :wo} output windows)
 * only for a provider that meters input and output apart.
 * Every key has a TTL: the window its length plus two slots, the leases their longest expiry,
 * the pause its end. In-flight slots are a sorted set of leases by expiry, swept by every
 * admission, so a replica that dies holding slots gives them back when its leases expire.
 */
public final class RedisProviderBudgetStore implements ProviderBudgetStore {
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ACQUIRE = script("budget_acquire", List.class);

    private static final RedisScript<Long> RELEASE = script("budget_release", Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> LEASE = script("budget_lease", List.class);

    private static final RedisScript<Long> ADJUST = script("budget_adjust", Long.class);
    private static final RedisScript<Long> SETTLE = script("budget_settle", Long.class);
    private static final RedisScript<Long> PAUSE = script("budget_pause", Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> CORRECT = script("budget_correct", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SNAPSHOT = script("budget_snapshot", List.class);

    private static final BudgetRefusal[] REFUSALS = {
        null,
        BudgetRefusal.PAUSED,
        BudgetRefusal.TOKENS,
        BudgetRefusal.REQUESTS,
        BudgetRefusal.IN_FLIGHT,
        BudgetRefusal.INPUT_TOKENS,
        BudgetRefusal.OUTPUT_TOKENS
    };

    private final ReactiveStringRedisTemplate redis;
    /** Null in production (Redis TIME); a fake clock in tests that must control time. */
    private final LongSupplier testClock;

    public RedisProviderBudgetStore(ReactiveStringRedisTemplate redis) {
        this(redis, null);
    }

    public RedisProviderBudgetStore(ReactiveStringRedisTemplate redis, LongSupplier testClock) {
        this.redis = redis;
        this.testClock = testClock;
    }

    private static <T> RedisScript<T> script(String name, Class<T> type) {
        return LuaScripts.load(type, name); // each budget_*.lua includes budget_common.lua
    }

    public static String windowKey(String key) {
        return "sluice:b:" + HashTags.tag(key) + ":w";
    }

    public static String leasesKey(String key) {
        return "sluice:b:" + HashTags.tag(key) + ":l";
    }

    public static String pauseKey(String key) {
        return "sluice:b:" + HashTags.tag(key) + ":p";
    }

    public static String inputWindowKey(String key) {
        return "sluice:b:" + HashTags.tag(key) + ":wi";
    }

    public static String outputWindowKey(String key) {
        return "sluice:b:" + HashTags.tag(key) + ":wo";
    }

    private String now() {
        return testClock == null ? "" : Long.toString(testClock.getAsLong());
    }

    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
        Amounts charge = call.charge();
        List<String> keys =
                List.of(windowKey(key), leasesKey(key), pauseKey(key), inputWindowKey(key), outputWindowKey(key));
        List<String> args = List.of(
                now(),
                Long.toString(charge.tokens()),
                call.leaseId(),
                Long.toString(limits.tokensPerMinute()),
                Long.toString(limits.requestsPerMinute()),
                Integer.toString(limits.maxInFlight()),
                Long.toString(limits.leaseMs()),
                Long.toString(limits.inFlightHintMs()),
                call.needSchedule() ? "1" : "0",
                Long.toString(charge.input()),
                Long.toString(charge.output()),
                Long.toString(limits.inputTokensPerMinute()),
                Long.toString(limits.outputTokensPerMinute()),
                Long.toString(limits.countDelayMs()));
        return redis.execute(ACQUIRE, keys, args).next().map(raw -> {
            int refusal = (int) num(raw, 2);
            BudgetSnapshot s = snapshot(limits, raw, 1, 4, 10, num(raw, 9) == 1 ? leaving(raw, 12) : null);
            return new BudgetDecision(num(raw, 0) == 1, REFUSALS[refusal], num(raw, 3), s);
        });
    }

    @Override
    public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
        List<String> keys =
                List.of(windowKey(key), leasesKey(key), pauseKey(key), inputWindowKey(key), outputWindowKey(key));
        List<String> args = new ArrayList<>(28 + 7 * ask.settlements().size());
        args.add(now());
        args.add(ask.replica());
        add(
                args,
                limits.tokensPerMinute(),
                limits.requestsPerMinute(),
                limits.maxInFlight(),
                limits.inputTokensPerMinute(),
                limits.outputTokensPerMinute(),
                limits.countDelayMs(),
                limits.inFlightHintMs(),
                ask.slotTtlMs(),
                ask.slotsInUse(),
                ask.slotsHeld(),
                ask.wantSlots(),
                ask.needSlot() ? 1 : 0);
        add(args, ask.need());
        add(args, ask.want());
        args.add(Long.toString(ask.giveBackAtMs()));
        add(args, ask.giveBack());
        args.add(ask.renewSlots() ? "1" : "0");
        args.add(Integer.toString(ask.settlements().size()));
        for (BudgetSettlement b : ask.settlements()) {
            add(
                    args,
                    b.chargedAtMs(),
                    b.countedByMs(),
                    b.chargedTokens(),
                    b.deltaTokens(),
                    b.deltaRequests(),
                    b.deltaInput(),
                    b.deltaOutput());
        }
        return redis.execute(LEASE, keys, args).next().map(raw -> {
            int refusal = (int) num(raw, 2);
            BudgetSnapshot s = snapshot(limits, raw, 1, 4, 9, leaving(raw, 17));
            Amounts granted = new Amounts(num(raw, 13), num(raw, 14), num(raw, 15), num(raw, 16));
            return new SliceGrant(
                    num(raw, 0) == 1, REFUSALS[refusal], num(raw, 3), granted, num(raw, 11), (int) num(raw, 12), s);
        });
    }

    private static void add(List<String> args, long... values) {
        for (long v : values) args.add(Long.toString(v));
    }

    private static void add(List<String> args, Amounts a) {
        add(args, a.requests(), a.tokens(), a.input(), a.output());
    }

    @Override
    public Mono<Boolean> release(String key, String leaseId) {
        return redis.execute(RELEASE, List.of(leasesKey(key)), List.of(now(), leaseId))
                .next()
                .map(n -> n == 1);
    }

    @Override
    public Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        return redis.execute(
                        SETTLE,
                        List.of(windowKey(key)),
                        List.of(
                                now(),
                                Long.toString(chargedAtMs),
                                Long.toString(countedByMs),
                                Long.toString(chargedTokens),
                                Long.toString(deltaTokens)))
                .then();
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta) {
        if (delta.isZero()) return Mono.empty();
        return redis.execute(
                        ADJUST,
                        List.of(windowKey(key), inputWindowKey(key), outputWindowKey(key)),
                        List.of(
                                now(),
                                Long.toString(chargedAtMs),
                                Long.toString(delta.tokens()),
                                Long.toString(delta.requests()),
                                Long.toString(delta.input()),
                                Long.toString(delta.output())))
                .then();
    }

    @Override
    public Mono<Long> pause(String key, long pauseMs) {
        return redis.execute(PAUSE, List.of(pauseKey(key)), List.of(now(), Long.toString(pauseMs)))
                .next();
    }

    @Override
    public Mono<Void> correct(
            String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        if (remainingRequests < 0 && remainingTokens < 0) return Mono.empty();
        return redis.execute(
                        CORRECT,
                        List.of(windowKey(key)),
                        List.of(
                                now(),
                                Long.toString(limits.tokensPerMinute()),
                                Long.toString(limits.requestsPerMinute()),
                                Long.toString(remainingTokens),
                                Long.toString(remainingRequests),
                                Long.toString(resetMs)))
                .then();
    }

    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return redis.execute(
                        SNAPSHOT,
                        List.of(
                                windowKey(key),
                                leasesKey(key),
                                pauseKey(key),
                                inputWindowKey(key),
                                outputWindowKey(key)),
                        List.of(
                                now(),
                                limits.inputTokensPerMinute() > 0 ? "1" : "0",
                                limits.outputTokensPerMinute() > 0 ? "1" : "0"))
                .next()
                .map(raw -> snapshot(limits, raw, 0, 1, 6, leaving(raw, 8)));
    }

    /**
     * The budget as a script's reply states it: its now at {@code nowAt}; from {@code usedAt}, used
     * tokens, used requests, in flight, paused until and reset, in that order; from {@code splitAt},
     * used input and output. Positional, as the reply is: the scripts' order, in one place.
     */
    private static BudgetSnapshot snapshot(
            BudgetLimits limits,
            List<?> raw,
            int nowAt,
            int usedAt,
            int splitAt,
            List<BudgetSnapshot.Leaving> leaving) {
        return new BudgetSnapshot(
                limits,
                num(raw, nowAt),
                num(raw, usedAt + 1),
                num(raw, usedAt),
                (int) num(raw, usedAt + 2),
                num(raw, usedAt + 3),
                num(raw, usedAt + 4),
                leaving,
                num(raw, splitAt),
                num(raw, splitAt + 1));
    }

    /** The leaving schedule the scripts append from {@code from}: leavesAt, tokens, requests per slot. */
    private static List<BudgetSnapshot.Leaving> leaving(List<?> raw, int from) {
        List<BudgetSnapshot.Leaving> out = new ArrayList<>((raw.size() - from) / 3);
        for (int i = from; i + 2 < raw.size(); i += 3) {
            out.add(new BudgetSnapshot.Leaving(num(raw, i), num(raw, i + 1), num(raw, i + 2)));
        }
        return out;
    }

    private static long num(List<?> raw, int i) {
        return ((Number) raw.get(i)).longValue();
    }
}
