package dev.sluice.gateway.tiers.redis;

import dev.sluice.gateway.store.LuaScripts;
import dev.sluice.gateway.store.RedisHashes;
import dev.sluice.gateway.tiers.TierDocument;
import dev.sluice.gateway.tiers.TierDocumentStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * The tiers document in one Redis hash, {@code <ns>:tiers} with fields {@code yaml},
 * {@code version}, {@code updated-by}, {@code updated-at} (epoch ms). Seeding and the
 * conditional write are Lua scripts, so each is one atomic step. The document is a record,
 * not a counter: like the tenants it carries no TTL.
 */
public final class RedisTierDocumentStore implements TierDocumentStore {
    private static final RedisScript<Long> SEED = LuaScripts.load(Long.class, "tiers_seed");
    private static final RedisScript<Long> REPLACE = LuaScripts.load(Long.class, "tiers_replace");

    private final ReactiveStringRedisTemplate redis;
    private final String key;
    private final Clock clock;

    public RedisTierDocumentStore(ReactiveStringRedisTemplate redis, String namespace, Clock clock) {
        this.redis = redis;
        this.key = namespace + ":tiers";
        this.clock = clock;
    }

    @Override
    public Mono<TierDocument> seedIfAbsent(String yaml, String source) {
        List<String> args = List.of(yaml, source, Long.toString(clock.millis()));
        return redis.execute(SEED, List.of(key), args).then(current());
    }

    @Override
    public Mono<TierDocument> restoreIfAbsent(TierDocument doc) {
        List<String> args = List.of(
                doc.yaml(),
                doc.updatedBy(),
                Long.toString(doc.updatedAt().toEpochMilli()),
                Long.toString(doc.version()));
        return redis.execute(SEED, List.of(key), args).then(current());
    }

    @Override
    public Mono<TierDocument> current() {
        return RedisHashes.fields(redis, key)
                .filter(m -> m.containsKey("yaml") && m.containsKey("version"))
                .map(m -> new TierDocument(
                        m.get("yaml"),
                        Long.parseLong(m.get("version")),
                        m.getOrDefault("updated-by", "?"),
                        Instant.ofEpochMilli(Long.parseLong(m.getOrDefault("updated-at", "0")))));
    }

    @Override
    public Mono<Long> version() {
        return RedisHashes.version(redis, key);
    }

    @Override
    public Mono<WriteOutcome> replace(long expectedVersion, String yaml, String updatedBy) {
        long now = clock.millis();
        List<String> args = List.of(Long.toString(expectedVersion), yaml, updatedBy, Long.toString(now));
        return redis.execute(REPLACE, List.of(key), args)
                .next()
                .flatMap(v -> v > 0
                        ? Mono.just(
                                new WriteOutcome(true, new TierDocument(yaml, v, updatedBy, Instant.ofEpochMilli(now))))
                        : current().map(c -> new WriteOutcome(false, c)));
    }
}
