package dev.sluice.gateway.dispatch.calibration.redis;

import dev.sluice.gateway.dispatch.calibration.CalibrationStore;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.LuaScripts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * The replicas' token ratios in Redis: one hash per provider budget,
 * {@code sluice:c:{default:gpt-4o}}, a field per replica; one EVALSHA
 * ({@code scripts/calibration_share.lua}) per share. The hash expires max age after its last write.
 */
public final class RedisCalibrationStore implements CalibrationStore {
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SHARE = LuaScripts.load(List.class, "calibration_share");

    private final ReactiveStringRedisTemplate redis;

    public RedisCalibrationStore(ReactiveStringRedisTemplate redis) {
        this.redis = redis;
    }

    public static String hashKey(String key) {
        return "sluice:c:" + HashTags.tag(key);
    }

    @Override
    public Mono<Map<String, Entry>> share(String key, String replica, Entry mine, long maxAgeMs) {
        return redis.execute(
                        SHARE,
                        List.of(hashKey(key)),
                        List.of(
                                replica,
                                mine.encode(),
                                Long.toString(mine.atMs()),
                                Long.toString(Math.max(1, maxAgeMs))))
                .next()
                .map(RedisCalibrationStore::entries)
                .defaultIfEmpty(Map.of());
    }

    private static Map<String, Entry> entries(List<?> flat) {
        Map<String, Entry> out = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            String replica = String.valueOf(flat.get(i));
            Entry.decode(String.valueOf(flat.get(i + 1))).ifPresent(e -> out.put(replica, e));
        }
        return out;
    }
}
