package dev.sluice.gateway.objects.redis;

import dev.sluice.gateway.objects.ObjectOwnership;
import dev.sluice.gateway.objects.ObjectRecord;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Object owners in Redis, shared by every replica: one string key per object,
 * {@code sluice:o:{<objectId>}} (the id is its own hash tag, so Redis Cluster spreads them), holding
 * {@link ObjectRecord#encode()}. Every key expires {@link #TTL} after it was last claimed or read:
 * OpenAI keeps most objects until deleted, so the TTL is long and each use starts it again (GETEX).
 *
 * <p>A list page's ids live in many slots, so one MGET would fail with CROSSSLOT on a cluster:
 * the GETEX commands of a page are sent together, none waiting for the previous reply (Lettuce
 * pipelines commands issued on its shared connection), and the page costs one round trip.
 * Reply work is a split of one short line. Redis down or slow: the call fails within
 * {@code timeout} and the caller refuses the request (an owner it cannot read is no owner).
 */
public final class RedisObjectOwnership implements ObjectOwnership {
    /** Longer than OpenAI keeps a batch's files (30 days) or a stored response (30 days); a year and a bit. */
    public static final Duration TTL = Duration.ofDays(400);

    private final ReactiveStringRedisTemplate redis;
    private final StoreState state;
    private final Duration timeout;

    public RedisObjectOwnership(ReactiveStringRedisTemplate redis, StoreState state, Duration timeout) {
        this.redis = redis;
        this.state = state;
        this.timeout = timeout;
    }

    static String key(String objectId) {
        return "sluice:o:" + HashTags.tag(objectId);
    }

    @Override
    public Mono<ObjectRecord> claim(String objectId, ObjectRecord record) {
        String key = key(objectId);
        return guarded(redis.opsForValue()
                .setIfAbsent(key, record.encode(), TTL)
                .flatMap(set -> set
                        ? Mono.just(record)
                        : redis.opsForValue()
                                .getAndExpire(key, TTL)
                                .map(ObjectRecord::decode)
                                // Gone between the two calls (expired): the record is ours to write.
                                .switchIfEmpty(Mono.defer(() -> claim(objectId, record)))));
    }

    /**
     * Read, then written only if the owner is the same: the id is never handed to another tenant
     * (a claim never replaces a record, and this replaces only its owner's own).
     */
    @Override
    public Mono<Void> update(String objectId, ObjectRecord record) {
        String key = key(objectId);
        return guarded(redis.opsForValue()
                .get(key)
                .map(ObjectRecord::decode)
                .filter(held -> held.owner().equals(record.owner()))
                .flatMap(held -> redis.opsForValue().set(key, record.encode(), TTL))
                .then());
    }

    @Override
    public Mono<ObjectRecord> owner(String objectId) {
        return owner(objectId, DecisionBudget.UNLIMITED);
    }

    @Override
    public Mono<ObjectRecord> owner(String objectId, DecisionBudget budget) {
        return guarded(redis.opsForValue().getAndExpire(key(objectId), TTL).map(ObjectRecord::decode), budget);
    }

    @Override
    public Mono<Map<String, ObjectRecord>> owners(List<String> objectIds) {
        return owners(objectIds, DecisionBudget.UNLIMITED);
    }

    @Override
    public Mono<Map<String, ObjectRecord>> owners(List<String> objectIds, DecisionBudget budget) {
        List<String> ids = List.copyOf(new LinkedHashSet<>(objectIds));
        if (ids.isEmpty()) return Mono.just(Map.of());
        return guarded(
                Flux.fromIterable(ids)
                        .flatMapSequential(
                                id -> redis.opsForValue()
                                        .getAndExpire(key(id), TTL)
                                        .map(v -> Map.entry(id, v)),
                                ids.size())
                        .collect(
                                HashMap<String, ObjectRecord>::new,
                                (m, e) -> m.put(e.getKey(), ObjectRecord.decode(e.getValue())))
                        .map(m -> (Map<String, ObjectRecord>) m),
                budget);
    }

    private <T> Mono<T> guarded(Mono<T> call) {
        return guarded(call, DecisionBudget.UNLIMITED);
    }

    /** Refused as Redis down (the caller answers 503) when it is, or when the request has no time left to wait on it. */
    private <T> Mono<T> guarded(Mono<T> call, DecisionBudget budget) {
        if (!state.up())
            return Mono.error(new StoreUnavailableException("Redis does not answer: object owners cannot be read"));
        if (budget.spent()) return Mono.error(new StoreUnavailableException("no time left to read object owners"));
        return budget.within(call, timeout, state).doOnError(e -> {
            if (!(e instanceof IllegalArgumentException) && DecisionBudget.marksDown(e)) state.failed(e);
        });
    }
}
