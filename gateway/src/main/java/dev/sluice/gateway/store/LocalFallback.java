package dev.sluice.gateway.store;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The local store a capability falls back on while Redis is down, and what follows when Redis
 * answers again: the next outage starts on a fresh local store, and each key served locally
 * since the last recovery has what the old store spent on it charged to the shared store (as
 * spent at the recovery: the safe side), so the minute after an outage counts the calls made
 * during it and nobody gets a second full window. Reading a key's spend back and charging it
 * is the capability's own {@link HandOver}; the order, the clock and the swap are kept here once.
 *
 * @param <S> the local store
 * @param <K> what names one thing served locally (a tenant, a provider budget)
 * @param <R> what reads its spend back (the tenant's windows, the share of the limits it ran on)
 */
public final class LocalFallback<S, K, R> {

    /** One key's hand-over: reads what {@code spent} spent on {@code key} and charges it to the shared store. */
    @FunctionalInterface
    public interface HandOver<S, K, R> {
        /**
         * Runs on the thread that saw Redis answer (the probe's, a Redis client's): it subscribes,
         * never blocks.
         *
         * @param nowMs the recovery's time, which the charge is stamped with
         */
        void handOver(S spent, K key, R readBack, long nowMs);
    }

    private final Supplier<S> fresh;
    private final Clock clock;
    private final HandOver<S, K, R> handOver;
    private final Map<K, R> served = new ConcurrentHashMap<>();
    private volatile S local;

    /**
     * Registers the hand-over on {@code state}'s recovery, unless {@code fresh} is null: then
     * {@code first} serves every outage and nothing is handed over.
     *
     * @param first the local store of the first outage
     * @param fresh makes the next outage's local store; null: keep {@code first}, hand nothing over
     * @param clock the shared store's time (Redis TIME is wall-clock time), for the hand-over's charge
     */
    public LocalFallback(S first, Supplier<S> fresh, StoreState state, Clock clock, HandOver<S, K, R> handOver) {
        this.local = first;
        this.fresh = fresh;
        this.clock = clock;
        this.handOver = handOver;
        if (fresh != null) state.onRecovery(this::handOverLocalSpend);
    }

    /** The local store in use now. */
    public S local() {
        return local;
    }

    /**
     * The local store, for {@code key} served on it now: its spend is handed over at the next
     * recovery, read back with {@code readBack} (the latest given for the key).
     */
    public S serve(K key, R readBack) {
        if (fresh != null) served.put(key, readBack);
        return local;
    }

    /** Redis answers again: a fresh local store for the next outage, then each key served on the old one handed over. */
    void handOverLocalSpend() {
        S spent = local;
        local = fresh.get();
        long now = clock.millis();
        served.forEach((key, readBack) -> {
            served.remove(key);
            handOver.handOver(spent, key, readBack, now);
        });
    }
}
