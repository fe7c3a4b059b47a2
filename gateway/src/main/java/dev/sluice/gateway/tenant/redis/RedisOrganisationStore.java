package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.OrganisationStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Organisations in Redis, shared by every replica:
 * <ul>
 *   <li>{@code sluice:org:{id}}: hash {@code name}, {@code windows} where it has any
 *       ("name seconds tokens requests" per window, ';' between) and {@code spend} where it has
 *       budgets (as a tenant's: "dayMicros monthMicros zone");</li>
 *   <li>{@code sluice:orgs}: set of ids, for listing.</li>
 * </ul>
 * Records, not counters: no TTL. Read on every request of a member tenant, so what was read is
 * remembered for {@link RedisTenantStore#REMEMBER} (a change made here forgets it at once), and
 * kept as <em>known</em> to answer while Redis is down (an organisation never read here is then a
 * {@link StoreUnavailableException}, as an unknown key is).
 */
public final class RedisOrganisationStore implements OrganisationStore {
    private static final Logger log = LoggerFactory.getLogger(RedisOrganisationStore.class);

    private record Remembered(Organisation organisation, long untilNanos) {}

    private final ReactiveStringRedisTemplate redis;
    private final LongSupplier nanoClock;
    private final StoreState state;
    private final Duration timeout;
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();
    private final Map<String, Organisation> known = new ConcurrentHashMap<>();
    private final AtomicLong changes = new AtomicLong();

    public RedisOrganisationStore(ReactiveStringRedisTemplate redis) {
        this(redis, System::nanoTime, StoreState.alwaysUp(), Duration.ofSeconds(5));
    }

    public RedisOrganisationStore(
            ReactiveStringRedisTemplate redis, LongSupplier nanoClock, StoreState state, Duration timeout) {
        this.redis = redis;
        this.nanoClock = nanoClock;
        this.state = state;
        this.timeout = timeout;
    }

    static String orgKey(String id) {
        return "sluice:org:{" + id + "}";
    }

    @Override
    public Mono<Organisation> findById(String id) {
        return read(id);
    }

    @Override
    public Mono<Organisation> findById(String id, DecisionBudget budget) {
        long now = nanoClock.getAsLong();
        Remembered r = remembered.get(id);
        if (r != null && now - r.untilNanos() < 0) return Mono.just(r.organisation());
        if (!state.up() || budget.spent()) return fromKnown(id);
        long changesBefore = changes.get();
        return budget.within(read(id), timeout, state)
                .doOnNext(o -> {
                    known.put(id, o);
                    remembered.put(id, new Remembered(o, now + RedisTenantStore.REMEMBER.toNanos()));
                    if (changes.get() != changesBefore) remembered.remove(id);
                })
                .switchIfEmpty(Mono.fromRunnable(() -> known.remove(id)))
                .onErrorResume(e -> {
                    if (DecisionBudget.marksDown(e)) state.failed(e);
                    return fromKnown(id);
                });
    }

    private Mono<Organisation> fromKnown(String id) {
        Organisation o = known.get(id);
        return o != null
                ? Mono.just(o)
                : Mono.error(new StoreUnavailableException(
                        "Redis does not answer and organisation '" + id + "' was not read before"));
    }

    private Mono<Organisation> read(String id) {
        return redis.<String, String>opsForHash()
                .entries(orgKey(id))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .filter(m -> m.containsKey("name"))
                .map(m -> new Organisation(
                        id,
                        m.get("name"),
                        windowsOf(m.get("windows")),
                        Optional.ofNullable(RedisTenantStore.spendOf(m.get("spend")))
                                .orElse(SpendBudget.NONE)));
    }

    /** Reloads every organisation, so members keep their shared caps while Redis is out. */
    public Mono<Void> refreshKnown() {
        return findAll().doOnNext(o -> known.put(o.id(), o)).then();
    }

    @Override
    public Flux<Organisation> findAll() {
        return redis.opsForSet().members("sluice:orgs").sort().concatMap(this::read);
    }

    @Override
    public Mono<Boolean> create(Organisation organisation) {
        return changing(redis.<String, String>opsForHash()
                .putIfAbsent(orgKey(organisation.id()), "name", organisation.name())
                .flatMap(created -> created ? save(organisation).thenReturn(true) : Mono.just(false)));
    }

    @Override
    public Mono<Void> save(Organisation o) {
        Map<String, String> fields = new HashMap<>(Map.of("name", o.name()));
        List<Object> absent = new ArrayList<>(2);
        if (o.windows().isEmpty()) absent.add("windows");
        else fields.put("windows", windowsField(o.windows()));
        if (o.spend().capped()) fields.put("spend", RedisTenantStore.spendField(o.spend()));
        else absent.add("spend");
        known.put(o.id(), o);
        Mono<?> remove = absent.isEmpty()
                ? Mono.empty()
                : redis.<String, String>opsForHash().remove(orgKey(o.id()), absent.toArray());
        return changing(redis.<String, String>opsForHash()
                .putAll(orgKey(o.id()), fields)
                .then(remove)
                .then(redis.opsForSet().add("sluice:orgs", o.id()))
                .then());
    }

    @Override
    public Mono<Boolean> delete(String id) {
        known.remove(id);
        return changing(redis.delete(orgKey(id))
                .flatMap(n -> redis.opsForSet().remove("sluice:orgs", id).thenReturn(n > 0)));
    }

    private <T> Mono<T> changing(Mono<T> change) {
        return change.doOnTerminate(this::forget).doFinally(s -> forget());
    }

    private void forget() {
        changes.incrementAndGet();
        remembered.clear();
    }

    static String windowsField(List<WindowLimit> windows) {
        StringBuilder out = new StringBuilder();
        for (WindowLimit w : windows) {
            if (!out.isEmpty()) out.append(';');
            out.append(w.name())
                    .append(' ')
                    .append(w.seconds())
                    .append(' ')
                    .append(w.tokens())
                    .append(' ')
                    .append(w.requests());
        }
        return out.toString();
    }

    static List<WindowLimit> windowsOf(String field) {
        if (field == null || field.isEmpty()) return List.of();
        List<WindowLimit> out = new ArrayList<>();
        try {
            for (String w : field.split(";")) {
                String[] p = w.split(" ");
                out.add(new WindowLimit(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3])));
            }
        } catch (RuntimeException e) {
            log.warn("Unreadable organisation windows '{}' ignored: {}", field, e.toString());
            return List.of();
        }
        return out;
    }
}
