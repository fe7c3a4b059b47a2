package dev.sluice.gateway.abuse.redis;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.BufferedTenantActivity;
import dev.sluice.gateway.abuse.MinuteActivity;
import dev.sluice.gateway.abuse.Pressure;
import dev.sluice.gateway.store.LuaScripts;
import dev.sluice.gateway.support.Periodic;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Activity shared by every replica. The request path writes only to this process's
 * {@link ActivityBuffer}; every second the buffer is drained into Redis with one script call
 * per minute touched. Layout, per minute (hash-tagged on the minute so the keys share a
 * Cluster slot), each with a TTL of an hour:
 * <ul>
 *   <li>{@code <ns>:activity:{<minute ms>}:tenants}: hash tenant → tier;</li>
 *   <li>{@code <ns>:activity:{<minute ms>}:stages}: hash {@code "<tenant> <stage>"} → count;</li>
 *   <li>{@code <ns>:activity:{<minute ms>}:pressure}: hash {@code "<tenant> <window> <metric>"} → value,
 *       each merged as {@link Pressure#merge} does (sum, max or min) by the script.</li>
 * </ul>
 * If Redis is unreachable a drained batch is dropped (counted in the log at debug): the
 * series loses a minute's stage counts, the request path loses nothing.
 */
public final class RedisTenantActivity extends BufferedTenantActivity {
    private static final Logger log = LoggerFactory.getLogger(RedisTenantActivity.class);
    private static final RedisScript<Long> FLUSH = LuaScripts.load(Long.class, "activity_flush");
    private static final long TTL_MS = 3_600_000L;

    private final ReactiveStringRedisTemplate redis;
    private final String namespace;
    private final Periodic shipping = new Periodic(
            "activity shipping",
            () -> flush().onErrorResume(e -> {
                log.debug("Activity not shipped: {}", e.toString());
                return Mono.empty();
            }));

    public RedisTenantActivity(ReactiveStringRedisTemplate redis, String namespace, Clock clock) {
        super(clock);
        this.redis = redis;
        this.namespace = namespace;
    }

    String tenantsKey(long minute) {
        return namespace + ":activity:{" + minute + "}:tenants";
    }

    String stagesKey(long minute) {
        return namespace + ":activity:{" + minute + "}:stages";
    }

    String pressureKey(long minute) {
        return namespace + ":activity:{" + minute + "}:pressure";
    }

    /** Starts shipping the buffer every {@code interval}. */
    public void start(Duration interval) {
        shipping.start(interval, interval);
    }

    /** Stops shipping after one last flush. Blocks briefly: shutdown only. */
    public void stop() {
        shipping.stop();
        try {
            flush().block(Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.debug("Last activity flush failed: {}", e.toString());
        }
    }

    @Override
    public Mono<Void> flush() {
        return Flux.defer(() -> Flux.fromIterable(buffer.drain(clock.millis())))
                .concatMap(this::ship)
                .then();
    }

    private Mono<Long> ship(MinuteActivity m) {
        List<String> args = new ArrayList<>();
        args.add(Long.toString(TTL_MS));
        args.add(Integer.toString(m.tierByTenant().size()));
        args.add("0"); // the stage pairs' count, set below
        m.tierByTenant().forEach((tenant, tier) -> {
            args.add(tenant);
            args.add(tier);
        });
        int[] pairs = {0};
        m.stagesByTenant()
                .forEach((tenant, counts) -> counts.forEach((stage, n) -> {
                    args.add(tenant + " " + stage);
                    args.add(Long.toString(n));
                    pairs[0]++;
                }));
        args.set(2, Integer.toString(pairs[0]));
        m.pressureByTenant()
                .forEach((tenant, counters) -> counters.forEach((k, v) -> {
                    args.add(tenant + " " + k);
                    args.add(
                            switch (Pressure.op(k)) {
                                case SUM -> "+";
                                case MAX -> ">";
                                case MIN -> "<";
                            });
                    args.add(Long.toString(v));
                }));
        long minute = m.minuteStartMs();
        return redis.execute(FLUSH, List.of(tenantsKey(minute), stagesKey(minute), pressureKey(minute)), args)
                .next();
    }

    @Override
    public Mono<MinuteActivity> minute(long minuteStartMs) {
        Mono<Map<String, String>> tiers = redis.<String, String>opsForHash()
                .entries(tenantsKey(minuteStartMs))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
        Mono<Map<String, Map<String, Long>>> stages = countsByTenant(stagesKey(minuteStartMs));
        Mono<Map<String, Map<String, Long>>> pressure = countsByTenant(pressureKey(minuteStartMs));
        return Mono.zip(tiers, stages, pressure)
                .map(t -> new MinuteActivity(minuteStartMs, t.getT1(), t.getT2(), t.getT3()));
    }

    /** A minute's hash of counts whose fields are "tenant name": tenant, then name, then count. */
    private Mono<Map<String, Map<String, Long>>> countsByTenant(String key) {
        return redis.<String, String>opsForHash().entries(key).collectList().map(entries -> {
            Map<String, Map<String, Long>> out = new HashMap<>();
            entries.forEach(e -> {
                String[] tn = e.getKey().split(" ", 2);
                if (tn.length == 2)
                    out.computeIfAbsent(tn[0], t -> new HashMap<>()).put(tn[1], Long.parseLong(e.getValue()));
            });
            return out;
        });
    }
}
