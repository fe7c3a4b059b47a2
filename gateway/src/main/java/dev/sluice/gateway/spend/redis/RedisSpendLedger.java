package dev.sluice.gateway.spend.redis;

import dev.sluice.gateway.spend.LedgerBuffer;
import dev.sluice.gateway.spend.LedgerDay;
import dev.sluice.gateway.spend.LedgerRange;
import dev.sluice.gateway.spend.LedgerTotals;
import dev.sluice.gateway.spend.SpendLedger;
import dev.sluice.gateway.store.HashTags;
import dev.sluice.gateway.store.LuaScripts;
import dev.sluice.gateway.support.Causes;
import dev.sluice.gateway.support.Drainable;
import dev.sluice.gateway.support.Periodic;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The ledger shared by every replica. The request path adds to this process's {@link LedgerBuffer};
 * every {@code interval} (a second) it is drained into Redis, one script call per tenant (its
 * months' hashes share its hash tag) and one per month touched for the export's index:
 * <ul>
 *   <li>{@code <ns>:ledger:{<tenant>}:<YYYY-MM>}: hash, per day of the month {@code <dd>:in},
 *       {@code :out}, {@code :req}, {@code :usd} (micro-dollars), {@code :tier};</li>
 *   <li>{@code <ns>:ledger-tenants:{<YYYY-MM>}}: set of the tenants with a row in that month.</li>
 * </ul>
 * Every key's TTL is set again at each write to {@link #TTL_MS} (430 days), so a day is kept at
 * least {@link SpendLedger#KEPT_DAYS} days. A flush Redis refused or could not take is put back
 * and goes with the next; one that timed out is dropped and logged (the script may have run:
 * sending it again could count it twice). A crash loses what the replica held: at most one
 * interval of its settlements.
 */
public final class RedisSpendLedger implements SpendLedger, Drainable {
    private static final Logger log = LoggerFactory.getLogger(RedisSpendLedger.class);
    private static final RedisScript<Long> FLUSH = LuaScripts.load(Long.class, "ledger_flush");
    private static final RedisScript<Long> INDEX = LuaScripts.load(Long.class, "ledger_index");
    static final long TTL_MS = (KEPT_DAYS + 30L) * 86_400_000L;

    private final ReactiveStringRedisTemplate redis;
    private final String namespace;
    private final Duration timeout;
    private final LedgerBuffer buffer = new LedgerBuffer();
    private final Periodic shipping = new Periodic("spend ledger shipping", this::flush);
    private volatile boolean direct;

    public RedisSpendLedger(ReactiveStringRedisTemplate redis, String namespace, Duration timeout) {
        this.redis = redis;
        this.namespace = namespace;
        this.timeout = timeout;
    }

    String monthKey(String tenant, YearMonth month) {
        return namespace + ":ledger:" + HashTags.tag(tenant) + ":" + month;
    }

    String indexKey(YearMonth month) {
        return namespace + ":ledger-tenants:" + HashTags.tag(month.toString());
    }

    public void start(Duration interval) {
        shipping.start(interval, interval);
    }

    public void stop() {
        shipping.stop();
    }

    @Override
    public void settled(long nowMs, String tenantId, String tierName, long in, long out, long micros) {
        buffer.add(LedgerRange.dayOf(nowMs), tenantId, tierName, new LedgerTotals(in, out, 1, micros));
        if (direct) flush().subscribe(); // shutdown's flush has run: nothing would ship it later
    }

    @Override
    public Mono<Void> flush() {
        return Mono.defer(() -> {
            List<LedgerDay> rows = buffer.drain();
            if (rows.isEmpty()) return Mono.empty();
            Map<String, List<LedgerDay>> byTenant = new LinkedHashMap<>();
            Map<YearMonth, List<String>> byMonth = new LinkedHashMap<>();
            for (LedgerDay r : rows) {
                byTenant.computeIfAbsent(r.tenant(), t -> new ArrayList<>()).add(r);
                List<String> tenants = byMonth.computeIfAbsent(YearMonth.from(r.day()), m -> new ArrayList<>());
                if (!tenants.contains(r.tenant())) tenants.add(r.tenant());
            }
            Mono<Void> index = Flux.fromIterable(byMonth.entrySet())
                    .flatMap(e -> {
                        List<String> args = new ArrayList<>();
                        args.add(Long.toString(TTL_MS));
                        args.addAll(e.getValue());
                        return redis.execute(INDEX, List.of(indexKey(e.getKey())), args);
                    })
                    .then();
            return index.then(Flux.fromIterable(byTenant.entrySet())
                            .flatMap(e -> ship(e.getKey(), e.getValue()))
                            .then())
                    .onErrorResume(e -> {
                        // The index failed: nothing of the rows was written.
                        putBackOrDrop(e, rows);
                        return Mono.empty();
                    });
        });
    }

    private Mono<Void> ship(String tenant, List<LedgerDay> rows) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        args.add(Long.toString(TTL_MS));
        for (LedgerDay r : rows) {
            String key = monthKey(tenant, YearMonth.from(r.day()));
            int k = keys.indexOf(key);
            if (k < 0) {
                keys.add(key);
                k = keys.size() - 1;
            }
            LedgerTotals t = r.totals();
            args.add(Integer.toString(k + 1));
            args.add(String.format("%02d", r.day().getDayOfMonth()));
            args.add(Long.toString(t.inputTokens()));
            args.add(Long.toString(t.outputTokens()));
            args.add(Long.toString(t.requests()));
            args.add(Long.toString(t.micros()));
            args.add(r.tier());
        }
        return redis.execute(FLUSH, keys, args).timeout(timeout).then().onErrorResume(e -> {
            putBackOrDrop(e, rows);
            return Mono.empty();
        });
    }

    private void putBackOrDrop(Throwable e, List<LedgerDay> rows) {
        boolean mayHaveRun = Causes.any(e, t -> t instanceof TimeoutException || t instanceof QueryTimeoutException);
        if (mayHaveRun) {
            log.warn(
                    "Spend ledger rows not confirmed by Redis ({}); {} rows dropped rather than risk counting "
                            + "them twice",
                    e.toString(),
                    rows.size());
        } else {
            log.debug("Spend ledger not shipped ({}); {} rows kept for the next flush", e.toString(), rows.size());
            buffer.putBack(rows);
        }
    }

    @Override
    public Flux<LedgerDay> days(String tenantId, LocalDate from, LocalDate to) {
        LedgerRange range = new LedgerRange(from, to);
        return Flux.fromIterable(range.months())
                .concatMap(m -> month(tenantId, m))
                .filter(d -> range.contains(d.day()));
    }

    @Override
    public Flux<LedgerDay> all(LocalDate from, LocalDate to) {
        LedgerRange range = new LedgerRange(from, to);
        return Flux.fromIterable(range.months())
                .concatMap(m -> redis.opsForSet()
                        .members(indexKey(m))
                        .flatMap(t -> month(t, m), 16)
                        .filter(d -> range.contains(d.day()))
                        .sort(LedgerDay.ORDER));
    }

    /** One tenant's month, day by day. */
    private Flux<LedgerDay> month(String tenant, YearMonth m) {
        return redis.<String, String>opsForHash()
                .entries(monthKey(tenant, m))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .flatMapIterable(fields -> rows(tenant, m, fields));
    }

    static List<LedgerDay> rows(String tenant, YearMonth m, Map<String, String> fields) {
        Map<Integer, long[]> days = new HashMap<>();
        Map<Integer, String> tiers = new HashMap<>();
        fields.forEach((field, value) -> {
            int colon = field.indexOf(':');
            if (colon < 0) return;
            int day;
            try {
                day = Integer.parseInt(field.substring(0, colon));
            } catch (NumberFormatException e) {
                return;
            }
            String name = field.substring(colon + 1);
            if (name.equals("tier")) {
                tiers.put(day, value);
                return;
            }
            int slot = switch (name) {
                case "in" -> 0;
                case "out" -> 1;
                case "req" -> 2;
                case "usd" -> 3;
                default -> -1;
            };
            if (slot >= 0) days.computeIfAbsent(day, d -> new long[4])[slot] = Long.parseLong(value);
        });
        List<LedgerDay> out = new ArrayList<>();
        days.forEach((d, v) -> {
            if (d < 1 || d > m.lengthOfMonth()) return;
            out.add(new LedgerDay(m.atDay(d), tenant, tiers.get(d), new LedgerTotals(v[0], v[1], v[2], v[3])));
        });
        out.sort(LedgerDay.ORDER);
        return out;
    }

    /** Shutdown, before the Redis client stops: what is held goes now; what settles after goes at once. */
    @Override
    public void flush(Duration wait) {
        direct = true;
        flush().block(wait);
    }

    @Override
    public void resume() {
        direct = false;
    }
}
