package dev.sluice.gateway.shadow.redis;

import dev.sluice.gateway.shadow.ShadowLedgerStore;
import dev.sluice.gateway.shadow.ShadowMinute;
import dev.sluice.gateway.store.LuaScripts;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One hash per minute, {@code sluice:shadow:{<minute ms>}} (its own hash tag: minutes spread over a
 * cluster), a field per tenant, tier, draft version, side and stage ({@code acme|free|3|draft|rejected}:
 * ids and tier names never hold '|'), counted with HINCRBY and expiring {@link #RETENTION_MS} after
 * the minute. Adding is one script per minute; reading the last day is at most 1,440 HGETALLs, for the
 * console's what-if, not the request path.
 */
public final class RedisShadowLedger implements ShadowLedgerStore {
    private static final RedisScript<Long> ADD = LuaScripts.load(Long.class, "shadow_add");
    private static final String LIVE = "live";
    private static final String DRAFT = "draft";

    private final ReactiveStringRedisTemplate redis;
    private final Clock clock;

    public RedisShadowLedger(ReactiveStringRedisTemplate redis, Clock clock) {
        this.redis = redis;
        this.clock = clock;
    }

    static String key(long minuteStartMs) {
        return "sluice:shadow:{" + minuteStartMs + "}";
    }

    @Override
    public Mono<Void> add(Collection<ShadowMinute> increments) {
        Map<Long, List<String>> byMinute = new TreeMap<>();
        for (ShadowMinute m : increments) {
            List<String> args = byMinute.computeIfAbsent(m.minuteStartMs(), k -> new ArrayList<>());
            String prefix = m.tenantId() + '|' + m.tier() + '|' + m.draftVersion() + '|';
            m.live().forEach((stage, n) -> args.addAll(List.of(prefix + LIVE + '|' + stage, Long.toString(n))));
            m.draft().forEach((stage, n) -> args.addAll(List.of(prefix + DRAFT + '|' + stage, Long.toString(n))));
        }
        return Flux.fromIterable(byMinute.entrySet())
                .filter(e -> !e.getValue().isEmpty())
                .concatMap(e -> {
                    List<String> args = new ArrayList<>(e.getValue().size() + 1);
                    args.add(Long.toString(e.getKey() + RETENTION_MS));
                    args.addAll(e.getValue());
                    return redis.execute(ADD, List.of(key(e.getKey())), args);
                })
                .then();
    }

    @Override
    public Flux<ShadowMinute> since(long fromMs) {
        long first = Math.floorDiv(Math.max(fromMs, clock.millis() - RETENTION_MS) + 59_999, 60_000) * 60_000;
        long last = clock.millis() / 60_000 * 60_000;
        List<Long> minutes = new ArrayList<>();
        for (long m = first; m <= last; m += 60_000) minutes.add(m);
        return Flux.fromIterable(minutes)
                .flatMapSequential(
                        m -> redis.<String, String>opsForHash()
                                .entries(key(m))
                                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                                .flatMapIterable(fields -> parse(m, fields)),
                        8);
    }

    /** A minute's fields as its tenant-minutes; a field that does not parse (a future format) is skipped. */
    public static List<ShadowMinute> parse(long minute, Map<String, String> fields) {
        record Who(String tenant, String tier, long version) {}
        Map<Who, Map<String, Long>[]> grouped = new LinkedHashMap<>();
        fields.forEach((field, value) -> {
            String[] p = field.split("\\|", -1);
            if (p.length != 5) return;
            long version;
            long n;
            try {
                version = Long.parseLong(p[2]);
                n = Long.parseLong(value);
            } catch (NumberFormatException e) {
                return;
            }
            @SuppressWarnings("unchecked")
            Map<String, Long>[] sides = grouped.computeIfAbsent(
                    new Who(p[0], p[1], version), k -> new Map[] {new HashMap<>(), new HashMap<>()});
            if (p[3].equals(LIVE)) sides[0].merge(p[4], n, Long::sum);
            else if (p[3].equals(DRAFT)) sides[1].merge(p[4], n, Long::sum);
        });
        List<ShadowMinute> out = new ArrayList<>(grouped.size());
        grouped.forEach((who, sides) ->
                out.add(new ShadowMinute(minute, who.tenant(), who.tier(), who.version(), sides[0], sides[1])));
        return out;
    }
}
