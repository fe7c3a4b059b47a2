package dev.sluice.gateway.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Work kept per key and sent in one store call per key, off the request path. A key's batch goes
 * when it is full (its owner sends it at once), when the timer's tick finds it due, and at
 * shutdown ({@link #flush}), all of them within one wait while the store still answers. From that
 * flush until {@link #resume}, work goes at once ({@link #direct}): nothing would send it later.
 * What a batch holds, when it is full or due, and what a send is are the owner's.
 *
 * @param <K> what the work is kept by (a tenant's windows, a provider budget)
 * @param <B> one key's batch, a monitor its owner adds to and takes from
 */
public final class Batches<K, B> implements Drainable {
    private final Map<K, B> batches = new ConcurrentHashMap<>();
    private final Function<K, B> create;
    private final BiFunction<K, B, Mono<Void>> last;
    private final Periodic flusher;
    private final Scheduler timer;
    private volatile boolean direct;

    /**
     * @param name   what is batched, for the log
     * @param create a key's empty batch
     * @param every  how often {@code tick} runs
     * @param timer  where the ticks come from (tests pass a virtual-time one); null: none, tests tick by hand
     * @param tick   sends the batches that are due ({@link #forEach})
     * @param last   at shutdown, the call that sends all a batch holds; null when it holds nothing to send
     */
    public Batches(
            String name,
            Function<K, B> create,
            Duration every,
            Scheduler timer,
            Runnable tick,
            BiFunction<K, B, Mono<Void>> last) {
        this.create = create;
        this.last = last;
        this.timer = timer;
        this.flusher = timer == null ? null : new Periodic(name, () -> Mono.fromRunnable(tick), timer);
        if (flusher != null) flusher.start(every, every);
    }

    /** The key's batch, made empty on first use. */
    public B of(K key) {
        return batches.computeIfAbsent(key, create);
    }

    /** The key's batch, or null when it has none. */
    public B get(K key) {
        return batches.get(key);
    }

    public void forEach(BiConsumer<? super K, ? super B> action) {
        batches.forEach(action);
    }

    /** Drops the key's batch, if it is still {@code batch} (an idle key holds nothing). */
    public void forget(K key, B batch) {
        batches.remove(key, batch);
    }

    /** Whether work goes at once: the shutdown's flush has begun. */
    public boolean direct() {
        return direct;
    }

    /**
     * Shutdown, before the store's client stops: every batch sent, waiting at most {@code wait}.
     * The timer keeps ticking (a context stopped and started again batches as before).
     */
    @Override
    public void flush(Duration wait) {
        direct = true; // work that comes after this (an answer that was the last thing before shutdown) goes at once
        List<Mono<Void>> sends = new ArrayList<>();
        batches.forEach((key, batch) -> {
            Mono<Void> send = last.apply(key, batch);
            if (send != null) sends.add(send);
        });
        Mono.when(sends).block(wait);
    }

    @Override
    public void resume() {
        direct = false;
    }

    /** The timer stops (its owner's end). */
    public void close() {
        if (flusher != null) flusher.stop();
        if (timer != null) timer.dispose();
    }
}
