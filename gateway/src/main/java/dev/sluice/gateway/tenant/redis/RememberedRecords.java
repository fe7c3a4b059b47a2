package dev.sluice.gateway.tenant.redis;

import dev.sluice.gateway.store.DecisionBudget;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.store.StoreUnavailableException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * The records a Redis store reads on every request (a key's caller, a member's organisation), kept
 * on this replica: each one read is remembered for {@code remember} and answered from here
 * meanwhile, and kept as <em>known</em> to answer while Redis does not (down, slow, or the
 * request's budget spent). A change made through the store forgets what is remembered before its
 * caller hears it is done, and a read that began before a change is not remembered: it may not
 * hold the change. An id never read while Redis is down is a {@link StoreUnavailableException}.
 *
 * @param <T> the record
 */
final class RememberedRecords<T> {
    private record Remembered<T>(T value, long untilNanos) {}

    private final Function<String, Mono<T>> read;
    private final LongSupplier nanoClock;
    private final StoreState state;
    private final Duration timeout;
    private final long rememberNanos;
    private final int maxRemembered;
    private final UnaryOperator<String> notKnown;
    private final Map<String, Remembered<T>> remembered = new ConcurrentHashMap<>();
    /** Every record known to exist, to answer while Redis does not (bounded by the records that exist). */
    private final Map<String, T> known = new ConcurrentHashMap<>();
    /** Bumped by every change made here: a read that began before a change is not remembered. */
    private final AtomicLong changes = new AtomicLong();

    /**
     * @param read          an id's record from Redis; empty when there is none
     * @param nanoClock     a monotonic clock in nanoseconds ({@code System::nanoTime}; a fake one in tests)
     * @param timeout       how long a read may take before the known record answers instead
     * @param maxRemembered past this many remembered at once, the expired ones are dropped (and all, if
     *                      that is not enough)
     * @param notKnown      what an id never read is told while Redis does not answer
     */
    RememberedRecords(
            Function<String, Mono<T>> read,
            LongSupplier nanoClock,
            StoreState state,
            Duration timeout,
            Duration remember,
            int maxRemembered,
            UnaryOperator<String> notKnown) {
        this.read = read;
        this.nanoClock = nanoClock;
        this.state = state;
        this.timeout = timeout;
        this.rememberNanos = remember.toNanos();
        this.maxRemembered = maxRemembered;
        this.notKnown = notKnown;
    }

    /**
     * {@code id}'s record: remembered, or read from Redis within {@code budget} (and the timeout),
     * or, while Redis does not answer, the known one. Empty, and no longer known, when Redis holds none.
     */
    Mono<T> find(String id, DecisionBudget budget) {
        long now = nanoClock.getAsLong();
        Remembered<T> r = remembered.get(id);
        if (r != null && now - r.untilNanos() < 0) return Mono.just(r.value());
        if (!state.up() || budget.spent()) return fromKnown(id);
        long changesBefore = changes.get();
        return budget.within(read.apply(id), timeout, state)
                .doOnNext(value -> remember(id, value, now, changesBefore))
                .switchIfEmpty(Mono.fromRunnable(() -> known.remove(id)))
                .onErrorResume(e -> {
                    if (DecisionBudget.marksDown(e)) state.failed(e);
                    return fromKnown(id);
                });
    }

    private Mono<T> fromKnown(String id) {
        T value = known.get(id);
        return value != null ? Mono.just(value) : Mono.error(new StoreUnavailableException(notKnown.apply(id)));
    }

    private void remember(String id, T value, long now, long changesBefore) {
        if (remembered.size() >= maxRemembered) {
            remembered.values().removeIf(r -> now - r.untilNanos() >= 0);
            if (remembered.size() >= maxRemembered) remembered.clear();
        }
        remembered.put(id, new Remembered<>(value, now + rememberNanos));
        known.put(id, value);
        // A change made here while this read ran may not be in what it read: do not keep it.
        if (changes.get() != changesBefore) remembered.remove(id);
    }

    /** Every change made through the store ends with this: what was remembered may be out of date. */
    <R> Mono<R> changing(Mono<R> change) {
        // Before the caller hears the change is done (doFinally alone runs after that: a read made
        // right after the change could still get what was remembered), and on cancel too.
        return change.doOnTerminate(this::forgetRemembered).doFinally(s -> forgetRemembered());
    }

    private void forgetRemembered() {
        changes.incrementAndGet();
        remembered.clear();
    }

    void know(String id, T value) {
        known.put(id, value);
    }

    void knowIfAbsent(String id, T value) {
        known.putIfAbsent(id, value);
    }

    boolean knows(String id) {
        return known.containsKey(id);
    }

    void forgetKnown(String id) {
        known.remove(id);
    }

    /** A known record changed here: it applies while Redis is out too. */
    void updateKnown(String id, UnaryOperator<T> change) {
        known.computeIfPresent(id, (k, v) -> change.apply(v));
    }

    void updateAllKnown(BiFunction<String, T, T> change) {
        known.replaceAll(change);
    }

    /** What {@link #refreshed} compares with: the changes made here so far. */
    long mark() {
        return changes.get();
    }

    /**
     * Every record Redis holds, read since {@code mark}: they become the known ones, unless a change
     * was made here meanwhile (it may not be in them: the next refresh then).
     */
    void refreshed(Map<String, T> all, long mark) {
        if (changes.get() != mark) return;
        known.keySet().retainAll(all.keySet());
        known.putAll(all);
    }
}
