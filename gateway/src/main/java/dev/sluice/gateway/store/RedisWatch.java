package dev.sluice.gateway.store;

import dev.sluice.gateway.support.Periodic;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Probes Redis in the background, so no request ever has to find out it is gone or back:
 * one {@code EXISTS} of the seed marker every {@code interval}, bounded by the store timeout.
 * <ul>
 *   <li>No answer: {@link StoreState} goes down (requests answer by their tier's policy).</li>
 *   <li>An answer: the state goes up, which runs the recovery hooks.</li>
 *   <li>An answer without the marker: Redis is empty (first start, or it came back without
 *       its data). The seeders run (tiers document, demo tenants), then the marker is written.
 *       When this process had seen the marker before, that is a loss: one log line and
 *       {@code sluice.store.reseeded}.</li>
 * </ul>
 * Refreshers (the known key hashes) run every {@code refreshEvery} ticks while Redis answers.
 */
public final class RedisWatch {
    private static final Logger log = LoggerFactory.getLogger(RedisWatch.class);
    /** Written once everything is seeded; its absence when Redis answers means the data is gone. */
    public static final String MARKER = "sluice:seeded";

    private final ReactiveStringRedisTemplate redis;
    private final StoreState state;
    private final Duration timeout;
    private final Counter reseeded;
    private final List<Named> seeders = new CopyOnWriteArrayList<>();
    private final List<Named> refreshers = new CopyOnWriteArrayList<>();
    private final AtomicBoolean markerSeen = new AtomicBoolean();
    private volatile long ticks;
    /** Every how many answered probes the stores' refreshers run (set at start). */
    private volatile int refreshEvery = 1;

    private final Periodic loop = new Periodic(
            "redis watch",
            () -> probe().flatMap(up -> up && ticks++ % refreshEvery == 0 ? refresh() : Mono.just(up))
                    .onErrorResume(e -> Mono.just(false)));

    private record Named(String name, Supplier<Mono<Void>> work) {}

    public RedisWatch(ReactiveStringRedisTemplate redis, StoreState state, Duration timeout, MeterRegistry meters) {
        this.redis = redis;
        this.state = state;
        this.timeout = timeout;
        // At zero from the start: Prometheus' increase() misses a counter born at 1.
        this.reseeded = Counter.builder("sluice.store.reseeded")
                .description("Times Redis answered without Sluice's data and the gateway seeded it again")
                .register(meters);
        Gauge.builder("sluice.store.up", state, s -> s.up() ? 1 : 0)
                .description("1 while the shared store answers, 0 while each tier's redis-down policy decides")
                .register(meters);
    }

    public StoreState state() {
        return state;
    }

    /** Work that puts back what Sluice needs in an empty Redis; idempotent (it also runs at the first start). */
    public void addSeeder(String name, Supplier<Mono<Void>> work) {
        seeders.add(new Named(name, work));
    }

    /** Work that keeps a local copy fresh while Redis answers (failures are ignored: the copy just ages). */
    public void addRefresher(String name, Supplier<Mono<Void>> work) {
        refreshers.add(new Named(name, work));
    }

    /** One probe, bounded by the timeout: what start-up calls before deciding to talk to Redis at all. */
    public boolean probeNow(Duration bound) {
        try {
            // Only whether Redis answers: the seeders are not registered yet, the watch's loop seeds.
            Boolean answered = redis.hasKey(MARKER)
                    .timeout(bound)
                    .map(present -> {
                        state.answered();
                        return true;
                    })
                    .onErrorResume(e -> {
                        state.failed(e);
                        return Mono.just(false);
                    })
                    .block(bound.plusMillis(100));
            return Boolean.TRUE.equals(answered);
        } catch (RuntimeException e) {
            return false;
        }
    }

    public void start(Duration interval, int refreshEvery) {
        this.refreshEvery = refreshEvery;
        loop.start(Duration.ZERO, interval);
    }

    public void stop() {
        loop.stop();
    }

    /** True when Redis answered (and is seeded now, if it was empty). */
    Mono<Boolean> probe() {
        return redis.hasKey(MARKER)
                .timeout(timeout)
                .flatMap(present -> {
                    if (present) {
                        markerSeen.set(true);
                        state.answered();
                        return Mono.just(true);
                    }
                    // Up only once seeded: a request let through before the tiers document and the
                    // keys are back would meet an empty store (unknown key, default tiers).
                    return reseed().map(seeded -> {
                        if (seeded) state.answered();
                        return seeded;
                    });
                })
                .onErrorResume(e -> {
                    state.failed(e);
                    return Mono.just(false);
                });
    }

    /** True once every seeder ran and the marker is written; false leaves it to the next probe. */
    private Mono<Boolean> reseed() {
        boolean lost = markerSeen.get();
        return Flux.fromIterable(seeders)
                .concatMap(s -> s.work()
                        .get()
                        .timeout(timeout.multipliedBy(4))
                        .doOnError(e ->
                                log.warn("Seeding {} failed ({}); the next probe tries again", s.name(), e.toString())))
                // The marker only once everything is back: a seeding that failed is tried again next probe.
                .then(redis.opsForValue()
                        .set(MARKER, Long.toString(System.currentTimeMillis()))
                        .timeout(timeout))
                .doOnSuccess(v -> {
                    markerSeen.set(true);
                    if (lost) {
                        reseeded.increment();
                        log.warn(
                                "Redis answered without Sluice's data (marker {} gone: restarted without persistence, or "
                                        + "flushed): seeded again {}. Tenants and keys created through the admin API are lost; "
                                        + "run Redis with appendonly yes (docs/operations.md).",
                                MARKER,
                                seeders.stream().map(Named::name).toList());
                    } else {
                        log.info(
                                "Redis seeded: {}",
                                seeders.stream().map(Named::name).toList());
                    }
                })
                .thenReturn(true)
                .onErrorResume(e -> Mono.just(false));
    }

    private Mono<Boolean> refresh() {
        return Flux.fromIterable(refreshers)
                .concatMap(r -> r.work().get().timeout(timeout.multipliedBy(20)).onErrorResume(e -> {
                    log.debug("Refreshing {} failed: {}", r.name(), e.toString());
                    return Mono.empty();
                }))
                .then(Mono.just(true));
    }
}
