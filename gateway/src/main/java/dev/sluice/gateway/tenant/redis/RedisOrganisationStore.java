package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.RedisHashes;
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

    private final ReactiveStringRedisTemplate redis;
    private final RememberedRecords<Organisation> organisations;

    public RedisOrganisationStore(ReactiveStringRedisTemplate redis) {
        this(redis, System::nanoTime, StoreState.alwaysUp(), Duration.ofSeconds(5));
    }

    public RedisOrganisationStore(
            ReactiveStringRedisTemplate redis, LongSupplier nanoClock, StoreState state, Duration timeout) {
        this.redis = redis;
        // Unbounded: an organisation is read for its members, and organisations are few.
        this.organisations = new RememberedRecords<>(
                this::read,
                nanoClock,
                state,
                timeout,
                RedisTenantStore.REMEMBER,
                Integer.MAX_VALUE,
                id -> "Redis does not answer and organisation '" + id + "' was not read before");
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
        return organisations.find(id, budget);
    }

    private Mono<Organisation> read(String id) {
        return RedisHashes.fields(redis, orgKey(id))
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
        return findAll().doOnNext(o -> organisations.know(o.id(), o)).then();
    }

    @Override
    public Flux<Organisation> findAll() {
        return redis.opsForSet().members("sluice:orgs").sort().concatMap(this::read);
    }

    @Override
    public Mono<Boolean> create(Organisation organisation) {
        return organisations.changing(redis.<String, String>opsForHash()
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
        organisations.know(o.id(), o);
        Mono<?> remove = absent.isEmpty()
                ? Mono.empty()
                : redis.<String, String>opsForHash().remove(orgKey(o.id()), absent.toArray());
        return organisations.changing(redis.<String, String>opsForHash()
                .putAll(orgKey(o.id()), fields)
                .then(remove)
                .then(redis.opsForSet().add("sluice:orgs", o.id()))
                .then());
    }

    @Override
    public Mono<Boolean> delete(String id) {
        organisations.forgetKnown(id);
        return organisations.changing(redis.delete(orgKey(id))
                .flatMap(n -> redis.opsForSet().remove("sluice:orgs", id).thenReturn(n > 0)));
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
