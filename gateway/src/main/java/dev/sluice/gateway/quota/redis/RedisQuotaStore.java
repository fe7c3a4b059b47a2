package dev.sluice.gateway.quota.redis;

import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaStore;
import dev.sluice.gateway.quota.SpendLimit;
import dev.sluice.gateway.quota.SpendUsage;
import dev.sluice.gateway.quota.WindowUsage;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.LuaScripts;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * Tenant windows in Redis, shared by every replica: one EVALSHA per admission
 * ({@code scripts/quota_acquire.lua}), Redis TIME as the clock, one hash per window under
 * the tenant's hash tag ({@code sluice:q:{tenant}:minute}) so Redis Cluster keeps a tenant's
 * keys in one slot, each with a TTL of its window plus one slot. Memory per tenant is bounded:
 * at most 60 slots per window. A spend budget is one string of micro-dollars per period under the
 * same tag ({@code sluice:q:{tenant}:spend:day:2026-12-06}), charged in the same script, expiring
 * an hour after its period ends. The period is the caller's (the replica's clock, to which the
 * zone's midnight is computed); a request within the clocks' skew of midnight may count in the
 * neighbouring day.
 */
public class RedisQuotaStore implements QuotaStore {
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ACQUIRE = LuaScripts.load(List.class, "quota_acquire");

    private static final RedisScript<Long> ADJUST = LuaScripts.load(Long.class, "quota_adjust");

    private final ReactiveStringRedisTemplate redis;

    public RedisQuotaStore(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    public static String key(String tenantId, String window) {
        return "sluice:q:" + HashTags.tag(tenantId) + ":" + window;
    }

    /**
     * Opens the connection and loads the scripts before traffic arrives: otherwise the first
     * burst after start waits on the connect and the NOSCRIPT round trip, times out, and every
     * request of it falls back to the per-replica limiter.
     */
    public Mono<Void> warmUp() {
        return redis.execute(connection -> connection
                        .serverCommands()
                        .time()
                        .then(connection
                                .scriptingCommands()
                                .scriptLoad(ByteBuffer.wrap(
                                        ACQUIRE.getScriptAsString().getBytes(StandardCharsets.UTF_8))))
                        .then(connection
                                .scriptingCommands()
                                .scriptLoad(ByteBuffer.wrap(
                                        ADJUST.getScriptAsString().getBytes(StandardCharsets.UTF_8)))))
                .then();
    }

    /**
     * The time the scripts charge at, in epoch milliseconds; empty: the script reads Redis TIME,
     * the one clock every replica shares.
     */
    protected String now() {
        return "";
    }

    @Override
    public Mono<QuotaDecision> acquire(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
        long tokens = charge.tokens();
        long requests = charge.requests();
        long costMicros = charge.costMicros();
        if (tokens < 0 || requests < 0) {
            return Mono.error(new IllegalArgumentException(
                    "amounts must not be negative: tokens=" + tokens + " requests=" + requests));
        }
        if (costMicros < 0) return Mono.error(new IllegalArgumentException("cost must not be negative: " + costMicros));
        List<String> keys = new ArrayList<>(windows.size() + spends.size());
        List<String> args = new ArrayList<>(3 + 2 * windows.size() + 3 * spends.size());
        args.add(now());
        args.add(Long.toString(tokens));
        args.add(Long.toString(requests));
        for (WindowLimit w : windows) {
            keys.add(key(tenantId, w.name()));
            args.add(Long.toString(w.seconds() * 1000));
            args.add(w.tokens() + ":" + w.requests());
        }
        for (SpendLimit b : spends) {
            keys.add(key(tenantId, b.name()));
            args.add(Long.toString(b.capMicros()));
            args.add(Long.toString(b.endMs()));
            args.add(Long.toString(costMicros));
        }
        return redis.execute(ACQUIRE, keys, args).next().map(raw -> decision(windows, spends, raw));
    }

    private static QuotaDecision decision(List<WindowLimit> windows, List<SpendLimit> spends, List<?> raw) {
        boolean admitted = num(raw, 0) == 1;
        long now = num(raw, 1);
        long retry = num(raw, 2);
        int blocking = (int) num(raw, 3);
        List<WindowUsage> usage = new ArrayList<>(windows.size());
        for (int i = 0; i < windows.size(); i++) {
            WindowLimit w = windows.get(i);
            usage.add(new WindowUsage(
                    w.name(),
                    w.seconds(),
                    w.tokens(),
                    w.requests(),
                    num(raw, 4 + 3 * i),
                    num(raw, 5 + 3 * i),
                    num(raw, 6 + 3 * i)));
        }
        int at = 4 + 3 * windows.size();
        List<SpendUsage> spent = new ArrayList<>(spends.size());
        for (int j = 0; j < spends.size(); j++) {
            SpendLimit b = spends.get(j);
            spent.add(new SpendUsage(
                    b.name(), b.period(), b.capMicros(), num(raw, at + 2 * j), num(raw, at + 2 * j + 1)));
        }
        String blocked = blocking == 0
                ? null
                : blocking <= windows.size()
                        ? windows.get(blocking - 1).name()
                        : spends.get(blocking - 1 - windows.size()).name();
        return new QuotaDecision(admitted, now, retry, blocked, usage, spent);
    }

    private static long num(List<?> raw, int i) {
        return ((Number) raw.get(i)).longValue();
    }

    @Override
    public Mono<Void> adjustAll(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
        List<Correction> real = corrections.stream()
                .filter(c -> c.deltaTokens() != 0 || c.deltaRequests() != 0 || c.deltaMicros() != 0)
                .toList();
        if (real.isEmpty()) return Mono.empty();
        List<String> keys = new ArrayList<>(windows.size() + spends.size());
        List<String> args = new ArrayList<>(2 + windows.size() + spends.size() + 4 * real.size());
        args.add(now());
        args.add(Integer.toString(windows.size()));
        for (WindowLimit w : windows) {
            keys.add(key(tenantId, w.name()));
            args.add(Long.toString(w.seconds() * 1000));
        }
        for (SpendLimit b : spends) {
            keys.add(key(tenantId, b.name()));
            args.add(Long.toString(b.endMs()));
        }
        for (Correction c : real) {
            args.add(Long.toString(c.chargedAtMs()));
            args.add(Long.toString(c.deltaTokens()));
            args.add(Long.toString(c.deltaRequests()));
            args.add(Long.toString(c.deltaMicros()));
        }
        return redis.execute(ADJUST, keys, args).then();
    }

    @Override
    public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
        return acquire(tenantId, windows, 0, 0).map(QuotaDecision::windows);
    }
}
