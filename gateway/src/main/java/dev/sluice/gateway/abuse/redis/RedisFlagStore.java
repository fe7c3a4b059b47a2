package dev.sluice.gateway.abuse.redis;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.store.LuaScripts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Flags in Redis. Every key shares the hash tag {@code {flags}} so the scripts that touch
 * several keys work on Redis Cluster (flags are few; one slot is plenty):
 * <ul>
 *   <li>{@code <ns>:{flags}:flag:<id>}: hash {@code doc} (the flag as JSON), {@code rev}, {@code status};</li>
 *   <li>{@code <ns>:{flags}:open}: hash tenant → id of its open flag (what makes "one open flag" atomic);</li>
 *   <li>{@code <ns>:{flags}:latest}: hash tenant → id of its most recent flag;</li>
 *   <li>{@code <ns>:{flags}:index}: sorted set of ids by opening time, for listing.</li>
 * </ul>
 * A closed flag's key expires after {@code closedRetention} (90 days by default); the index
 * forgets ids whose flag has expired when it next lists them. Open flags and the indexes are
 * records without a TTL, like the tenants.
 */
public final class RedisFlagStore implements FlagStore {
    private static final RedisScript<String> OPEN = LuaScripts.load(String.class, "flag_open");
    private static final RedisScript<Long> UPDATE = LuaScripts.load(Long.class, "flag_update");
    private static final int CAS_ATTEMPTS = 5;

    private final ReactiveStringRedisTemplate redis;
    private final String prefix;
    private final Duration closedRetention;
    private final JsonMapper json = JsonMapper.builder().build();

    public RedisFlagStore(ReactiveStringRedisTemplate redis, String namespace, Duration closedRetention) {
        this.redis = redis;
        this.prefix = namespace + ":{flags}:";
        this.closedRetention = closedRetention;
    }

    private String flagKey(String id) {
        return prefix + "flag:" + id;
    }

    @Override
    public Mono<Flag> openIfNone(Flag flag) {
        if (!flag.isOpen()) return Mono.error(new IllegalArgumentException("a new flag is open"));
        List<String> keys = List.of(prefix + "open", prefix + "latest", prefix + "index", flagKey(flag.id()));
        List<String> args = List.of(
                flag.tenantId(),
                flag.id(),
                json.writeValueAsString(flag),
                Long.toString(flag.openedAt().toEpochMilli()));
        return redis.execute(OPEN, keys, args)
                .next()
                .flatMap(existing -> existing.isEmpty() ? Mono.just(flag) : Mono.empty());
    }

    private record Stored(Flag flag, long rev) {}

    private Mono<Stored> load(String id) {
        return redis.<String, String>opsForHash()
                .entries(flagKey(id))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .filter(m -> m.containsKey("doc"))
                .map(m -> new Stored(
                        json.readValue(m.get("doc"), Flag.class), Long.parseLong(m.getOrDefault("rev", "0"))));
    }

    @Override
    public Mono<Flag> find(String id) {
        return load(id).map(Stored::flag);
    }

    @Override
    public Flux<Flag> list(FlagStatus status, int limit) {
        String index = prefix + "index";
        return redis.opsForZSet()
                .reverseRange(index, Range.unbounded())
                .concatMap(id -> find(id).switchIfEmpty(
                                redis.opsForZSet().remove(index, id).then(Mono.empty())))
                .filter(f -> status == null || f.status() == status)
                .take(limit);
    }

    /** One HLEN: the open hash holds exactly one entry per open flag. */
    @Override
    public Mono<Long> countOpen() {
        return redis.opsForHash().size(prefix + "open");
    }

    @Override
    public Mono<Flag> latestFor(String tenantId) {
        return redis.<String, String>opsForHash()
                .get(prefix + "latest", tenantId)
                .flatMap(this::find);
    }

    @Override
    public Mono<Flag> update(String id, UnaryOperator<Flag> change) {
        return attempt(id, change, CAS_ATTEMPTS);
    }

    private Mono<Flag> attempt(String id, UnaryOperator<Flag> change, int left) {
        return load(id).flatMap(stored -> {
            Flag next = change.apply(stored.flag());
            if (!next.id().equals(id) || !next.tenantId().equals(stored.flag().tenantId())) {
                return Mono.error(new IllegalArgumentException("an update keeps the flag's id and tenant"));
            }
            List<String> keys = List.of(flagKey(id), prefix + "open");
            List<String> args = List.of(
                    Long.toString(stored.rev()),
                    json.writeValueAsString(next),
                    next.status().wire(),
                    next.tenantId(),
                    id,
                    Long.toString(closedRetention.toMillis()));
            return redis.execute(UPDATE, keys, args).next().flatMap(written -> {
                if (written == 1) return Mono.just(next);
                if (left <= 1)
                    return Mono.error(
                            new IllegalStateException("flag " + id + " is being changed by someone else; retry"));
                return attempt(id, change, left - 1);
            });
        });
    }
}
