package dev.sluice.gateway.dispatch.queue.redis;

import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.LuaScripts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * The fair queues' counters in Redis: one hash per provider budget, {@code sluice:f:{default:gpt-4o}}
 * (the budget's hash tag), fields per tenant and per replica; one EVALSHA
 * ({@code scripts/lane_share.lua}) per tick of a replica with lanes to report. The hash expires
 * {@link #KEEP} after its last write: after that every tenant starts level again.
 */
public final class RedisLaneShare implements LaneShare {
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> PUBLISH = LuaScripts.load(List.class, "lane_share");
    /** How long a budget's counters outlive the last report. */
    public static final Duration KEEP = Duration.ofMinutes(10);

    private final ReactiveStringRedisTemplate redis;

    public RedisLaneShare(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    public static String hashKey(String key) {
        return "sluice:f:" + HashTags.tag(key);
    }

    @Override
    public Mono<View> publish(
            String key, String replica, long nowMs, List<Report> lanes, List<Demand> demand, Terms terms) {
        List<String> args = new ArrayList<>(6 + 3 * lanes.size());
        args.add(replica);
        args.add(Long.toString(nowMs));
        args.add(Long.toString(terms.ttlMs()));
        args.add(Long.toString(terms.credit()));
        args.add(Long.toString(KEEP.toMillis()));
        args.add(LaneShare.encode(demand));
        for (Report lane : lanes) {
            args.add(lane.tenant());
            args.add(Long.toString(LaneShare.clamp(lane.served())));
            args.add(lane.waiting() ? "1" : "0");
        }
        return redis.execute(PUBLISH, List.of(hashKey(key)), args)
                .next()
                .map(RedisLaneShare::view)
                .defaultIfEmpty(View.ALONE);
    }

    private static View view(List<?> flat) {
        if (flat.size() < 3) return View.ALONE;
        OptionalLong others = ((Number) flat.get(0)).longValue() == 1
                ? OptionalLong.of(((Number) flat.get(1)).longValue())
                : OptionalLong.empty();
        int demands = ((Number) flat.get(2)).intValue();
        List<List<Demand>> elsewhere = new ArrayList<>(demands);
        for (int i = 3; i < 3 + demands; i++) elsewhere.add(LaneShare.decode(String.valueOf(flat.get(i))));
        Map<String, Long> counters = new HashMap<>();
        for (int i = 3 + demands; i + 1 < flat.size(); i += 2) {
            counters.put(String.valueOf(flat.get(i)), ((Number) flat.get(i + 1)).longValue());
        }
        return new View(others, counters, LaneShare.sum(elsewhere));
    }
}
