package dev.sluice.gateway.drafts.redis;

import dev.sluice.gateway.drafts.TierDraft;
import dev.sluice.gateway.drafts.TierDraftStore;
import dev.sluice.gateway.store.LuaScripts;
import dev.sluice.gateway.store.RedisHashes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * The draft in one Redis hash, {@code <ns>:{tiers-draft}} with fields {@code yaml},
 * {@code version}, {@code author}, {@code saved-at} and, while in shadow, {@code shadow-since}
 * (epoch ms). Every change is one Lua script ({@code draft_write.lua}) that answers the hash as
 * it left it. Like the tiers document it is a record, not a counter: no TTL (a deleted draft
 * leaves only its version).
 */
public final class RedisTierDraftStore implements TierDraftStore {
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> WRITE = LuaScripts.load(List.class, "draft_write");

    private final ReactiveStringRedisTemplate redis;
    private final String key;

    public RedisTierDraftStore(ReactiveStringRedisTemplate redis, String namespace) {
        this.redis = redis;
        this.key = namespace + ":{tiers-draft}";
    }

    @Override
    public Mono<TierDraft> current() {
        return RedisHashes.fields(redis, key).mapNotNull(RedisTierDraftStore::draft);
    }

    @Override
    public Mono<Long> version() {
        return RedisHashes.version(redis, key);
    }

    @Override
    public Mono<Outcome> save(long expectedVersion, String yaml, String author, Instant now) {
        return write("save", expectedVersion, yaml, author, Long.toString(now.toEpochMilli()));
    }

    @Override
    public Mono<Outcome> shadow(boolean on, Instant now) {
        return write("shadow", -1, on ? "1" : "0", Long.toString(now.toEpochMilli()));
    }

    @Override
    public Mono<Outcome> delete(long expectedVersion) {
        return write("delete", expectedVersion);
    }

    @SuppressWarnings("unchecked")
    private Mono<Outcome> write(String op, long expectedVersion, String... rest) {
        List<String> args = new ArrayList<>(List.of(op, Long.toString(expectedVersion)));
        args.addAll(List.of(rest));
        return redis.execute(WRITE, List.of(key), args).next().map(raw -> {
            List<Object> reply = (List<Object>) raw;
            Map<String, String> fields = new HashMap<>();
            for (int i = 1; i + 1 < reply.size(); i += 2)
                fields.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
            return new Outcome(((Number) reply.get(0)).longValue() == 1, draft(fields));
        });
    }

    private static TierDraft draft(Map<String, String> m) {
        if (!m.containsKey("yaml") || !m.containsKey("version")) return null;
        String since = m.get("shadow-since");
        return new TierDraft(
                m.get("yaml"),
                Long.parseLong(m.get("version")),
                m.getOrDefault("author", "?"),
                Instant.ofEpochMilli(Long.parseLong(m.getOrDefault("saved-at", "0"))),
                since != null,
                since == null ? null : Instant.ofEpochMilli(Long.parseLong(since)));
    }
}
