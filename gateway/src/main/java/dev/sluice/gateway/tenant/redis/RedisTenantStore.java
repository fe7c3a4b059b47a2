package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.RedisHashes;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import dev.sluice.gateway.tenant.Caller;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tenants in Redis, shared by every replica. Layout (all under {@code sluice:}):
 * <ul>
 *   <li>{@code sluice:tenant:{id}}: hash {@code tier}, {@code suspended}, {@code spend} where the
 *       tenant has its own spend budgets ("dayMicros monthMicros zone"), and {@code org} where it
 *       belongs to an organisation;</li>
 *   <li>{@code sluice:tenant:{id}:keys}: hash key id → {@code <sha256> <created-at ms> <hint>
 *       <tokens-per-minute> <usd-per-day micros> <expires-at ms or empty>} (the last three only where
 *       the key has caps or an expiry), the metadata the admin API lists and authentication reads
 *       (same hash tag: same Cluster slot as the tenant);</li>
 *   <li>{@code sluice:apikey:<sha256>}: the owning tenant's id: the one lookup authentication does;</li>
 *   <li>{@code sluice:tenants}: set of ids, for listing.</li>
 * </ul>
 * A key's metadata is written before its lookup entry and removed after it, so a key that
 * authenticates is always listed (and can be revoked). These are records, not counters, so
 * unlike the quota keys they carry no TTL.
 *
 * <p>Authentication runs on every request, and in Redis it is two round trips one after the
 * other (the key, then its tenant). So a key found is remembered ({@link RememberedRecords}) for {@link #REMEMBER}: a
 * change made through this store (a revoked key, a suspension, a new tier) applies here at
 * once, and on the other replicas within that second. Keys not found are not remembered, so a
 * new key works everywhere at once.
 *
 * <p>Redis down: every lookup is bounded by {@code timeout} (or what is left of the request's
 * {@link DecisionBudget}), and while {@link StoreState} says Redis is down none is sent. The answer then comes from the <em>known</em> keys: every key hash
 * this replica has resolved, and every key of every tenant, reloaded by {@link #refreshKnown()}
 * while Redis answers (hashes and tenant ids only, never a key in clear). A revocation or a
 * suspension made here applies to it at once; one made on another replica at the next refresh.
 * A hash not known is refused with {@link StoreUnavailableException}: the gateway cannot tell.
 */
public final class RedisTenantStore implements TenantStore {
    private static final Logger log = LoggerFactory.getLogger(RedisTenantStore.class);

    /** How long another replica may still accept a key after a change: the tiers document also takes about a second. */
    public static final Duration REMEMBER = Duration.ofSeconds(1);
    /** Past this many keys remembered at once, the expired ones are dropped (and all of them, if that is not enough). */
    static final int MAX_REMEMBERED = 10_000;

    private final ReactiveStringRedisTemplate redis;
    /** The callers by key hash: remembered, and known while Redis does not answer. */
    private final RememberedRecords<Caller> callers;

    public RedisTenantStore(ReactiveStringRedisTemplate redis) {
        this(redis, System::nanoTime);
    }

    /** @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime}; a fake one in tests) */
    public RedisTenantStore(ReactiveStringRedisTemplate redis, LongSupplier nanoClock) {
        this(redis, nanoClock, StoreState.alwaysUp(), Duration.ofSeconds(5));
    }

    /**
     * @param state   shared with the other stages: while down, no lookup is sent
     * @param timeout how long a lookup may take before the known keys answer instead
     */
    public RedisTenantStore(
            ReactiveStringRedisTemplate redis, LongSupplier nanoClock, StoreState state, Duration timeout) {
        this.redis = redis;
        this.callers = new RememberedRecords<>(
                this::readCaller,
                nanoClock,
                state,
                timeout,
                REMEMBER,
                MAX_REMEMBERED,
                hash -> "Redis does not answer and this key was not seen before");
    }

    static String tenantKey(String id) {
        return "sluice:tenant:{" + id + "}";
    }

    static String keysKey(String id) {
        return "sluice:tenant:{" + id + "}:keys";
    }

    static String apiKeyKey(String hash) {
        return "sluice:apikey:" + hash;
    }

    @Override
    public Mono<Tenant> findByKeyHash(String keySha256) {
        return findByKeyHash(keySha256, DecisionBudget.UNLIMITED);
    }

    @Override
    public Mono<Tenant> findByKeyHash(String keySha256, DecisionBudget budget) {
        return findCaller(keySha256, budget).map(Caller::tenant);
    }

    @Override
    public Mono<Caller> findCaller(String keySha256, DecisionBudget budget) {
        return callers.find(keySha256, budget);
    }

    /** The tenant and the key's record, read together (one round trip after the key's lookup). */
    private Mono<Caller> readCaller(String keySha256) {
        return redis.opsForValue()
                .get(apiKeyKey(keySha256))
                .flatMap(id -> Mono.zip(
                                findById(id),
                                redis.<String, String>opsForHash()
                                        .get(keysKey(id), TenantKey.idOf(keySha256))
                                        .map(RedisTenantStore::parse)
                                        .map(Optional::of)
                                        .defaultIfEmpty(Optional.empty()))
                        .map(tk -> new Caller(tk.getT1(), tk.getT2().orElse(null))));
    }

    /** Marks a hash as known without asking Redis: the demo tenants, when Redis is down at start. */
    public void know(String keySha256, Tenant tenant) {
        callers.knowIfAbsent(keySha256, new Caller(tenant, null));
    }

    /** Whether this hash would be answered without Redis. */
    public boolean knows(String keySha256) {
        return callers.knows(keySha256);
    }

    /**
     * Reloads every tenant's key hashes from Redis, so a key never used on this replica still
     * works while Redis is out, and a revocation or suspension made elsewhere reaches the copy.
     * One pass over the tenants: run every {@code sluice.store.known-keys-refresh}, not per request.
     */
    public Mono<Void> refreshKnown() {
        long mark = callers.mark();
        return redis.opsForSet()
                .members("sluice:tenants")
                .concatMap(id -> findById(id)
                        .flatMapMany(t -> redis.<String, String>opsForHash()
                                .values(keysKey(id))
                                .map(meta -> {
                                    TenantKey k = parse(meta);
                                    return Map.entry(k.sha256(), new Caller(t, k));
                                })))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .doOnNext(all -> callers.refreshed(all, mark))
                .then();
    }

    @Override
    public Mono<Tenant> findById(String id) {
        return RedisHashes.fields(redis, tenantKey(id))
                .filter(m -> m.containsKey("tier"))
                .map(m -> new Tenant(
                        id,
                        m.get("tier"),
                        Boolean.parseBoolean(m.get("suspended")),
                        spendOf(m.get("spend")),
                        m.get("org")));
    }

    @Override
    public Flux<Tenant> findAll() {
        return redis.opsForSet().members("sluice:tenants").sort().concatMap(this::findById);
    }

    @Override
    public Mono<Void> save(Tenant tenant) {
        // Its known keys follow at once: a suspension applies while Redis is out too.
        callers.updateAllKnown((hash, c) -> c.tenant().id().equals(tenant.id()) ? new Caller(tenant, c.key()) : c);
        Map<String, String> fields =
                new HashMap<>(Map.of("tier", tenant.tierName(), "suspended", Boolean.toString(tenant.suspended())));
        if (tenant.spend() != null) fields.put("spend", spendField(tenant.spend()));
        if (tenant.organisation() != null) fields.put("org", tenant.organisation());
        List<Object> absent = new ArrayList<>(2);
        if (tenant.spend() == null) absent.add("spend");
        if (tenant.organisation() == null) absent.add("org");
        Mono<?> noOverride = absent.isEmpty()
                ? Mono.empty()
                : redis.<String, String>opsForHash().remove(tenantKey(tenant.id()), absent.toArray());
        return callers.changing(redis.<String, String>opsForHash()
                .putAll(tenantKey(tenant.id()), fields)
                .then(noOverride)
                .then(redis.opsForSet().add("sluice:tenants", tenant.id()))
                .then());
    }

    /** A tenant's spend override as its hash keeps it: "dayMicros monthMicros zone". */
    static String spendField(SpendBudget b) {
        return b.dayMicros() + " " + b.monthMicros() + " " + b.zone().getId();
    }

    /** The override back; null when there is none, or when the field cannot be read (the tier's budgets then apply). */
    static SpendBudget spendOf(String field) {
        if (field == null) return null;
        try {
            String[] p = field.split(" ");
            return new SpendBudget(Long.parseLong(p[0]), Long.parseLong(p[1]), ZoneId.of(p[2]));
        } catch (RuntimeException e) {
            log.warn("Unreadable spend override '{}' ignored: {}", field, e.toString());
            return null;
        }
    }

    @Override
    public Mono<Boolean> create(Tenant tenant) {
        // HSETNX on the field every tenant has decides the race; the rest is written by the winner only.
        return callers.changing(redis.<String, String>opsForHash()
                .putIfAbsent(tenantKey(tenant.id()), "tier", tenant.tierName())
                .flatMap(created -> created ? save(tenant).thenReturn(true) : Mono.just(false)));
    }

    /** A key's metadata as its tenant's keys hash keeps it (see the class comment). */
    static String meta(TenantKey key) {
        String meta =
                key.sha256() + " " + key.createdAt().toEpochMilli() + " " + (key.hint() == null ? "" : key.hint());
        if (!key.caps() && key.expiresAt() == null) return meta; // as before keys had caps
        return meta + " " + key.tokensPerMinute() + " " + key.usdPerDayMicros() + " "
                + (key.expiresAt() == null ? "" : Long.toString(key.expiresAt().toEpochMilli()));
    }

    @Override
    public Mono<Boolean> updateKey(String tenantId, TenantKey key) {
        return callers.changing(redis.<String, String>opsForHash()
                .get(keysKey(tenantId), key.id())
                .flatMap(old -> redis.<String, String>opsForHash()
                        .put(
                                keysKey(tenantId),
                                key.id(),
                                meta(parse(old).with(key.tokensPerMinute(), key.usdPerDayMicros(), key.expiresAt()))))
                .doOnNext(x -> callers.updateKnown(key.sha256(), c -> new Caller(c.tenant(), key)))
                .map(written -> true)
                .defaultIfEmpty(false));
    }

    @Override
    public Mono<Void> addKey(String tenantId, TenantKey key) {
        String meta = meta(key);
        return callers.changing(redis.hasKey(tenantKey(tenantId))
                .flatMap(exists -> exists
                        ? redis.<String, String>opsForHash()
                                .put(keysKey(tenantId), key.id(), meta)
                                .then(redis.opsForValue().set(apiKeyKey(key.sha256()), tenantId))
                                .then()
                        : Mono.error(new IllegalArgumentException("no tenant " + tenantId))));
    }

    @Override
    public Flux<TenantKey> keys(String tenantId) {
        return redis.<String, String>opsForHash()
                .entries(keysKey(tenantId))
                .map(e -> parse(e.getValue()))
                .sort(Comparator.comparing(TenantKey::createdAt).thenComparing(TenantKey::id));
    }

    static TenantKey parse(String meta) {
        String[] parts = meta.split(" ", -1);
        String hint = parts.length > 2 && !parts[2].isEmpty() ? parts[2] : null;
        TenantKey key =
                new TenantKey(TenantKey.idOf(parts[0]), parts[0], hint, Instant.ofEpochMilli(Long.parseLong(parts[1])));
        if (parts.length < 6) return key;
        return key.with(
                Long.parseLong(parts[3]),
                Long.parseLong(parts[4]),
                parts[5].isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(parts[5])));
    }

    @Override
    public Mono<Boolean> revokeKey(String tenantId, String keyId) {
        return callers.changing(redis.<String, String>opsForHash()
                .get(keysKey(tenantId), keyId)
                .flatMap(meta -> {
                    String hash = meta.split(" ", 2)[0];
                    callers.forgetKnown(hash);
                    return redis.delete(apiKeyKey(hash))
                            .then(redis.<String, String>opsForHash().remove(keysKey(tenantId), keyId))
                            .thenReturn(true);
                })
                .defaultIfEmpty(false));
    }

    @Override
    public Mono<Boolean> revokeKey(String keySha256) {
        callers.forgetKnown(keySha256);
        return callers.changing(redis.opsForValue()
                .getAndDelete(apiKeyKey(keySha256))
                .flatMap(owner -> redis.<String, String>opsForHash()
                        .remove(keysKey(owner), TenantKey.idOf(keySha256))
                        .thenReturn(true))
                .defaultIfEmpty(false));
    }
}
