package dev.sluice.gateway.store;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Whether the shared store answers, as this replica last saw it. One call that failed or timed
 * out marks it down; from then on every stage goes straight to its tier's redis-down policy
 * instead of waiting out its own timeout again (a request crosses three stages that each talk
 * to Redis, and three timeouts in a row would blow the one-second bound). Only
 * {@link RedisWatch}'s probe marks it up again. No I/O here: health reads it too.
 *
 * <p>Calls already waiting when it goes down stop waiting too ({@link #whenDown()}): otherwise each
 * of them would still wait out its own timeout, started later than the one that failed, and a
 * request that waits on several of them in a row (its own, then a provider budget's refresh sent
 * meanwhile) would pay more than one timeout.
 */
public final class StoreState {
    private static final Logger log = LoggerFactory.getLogger(StoreState.class);

    private final AtomicBoolean up;
    private final AtomicLong downSinceMs = new AtomicLong();
    private final LongSupplier clockMs;
    private final List<Runnable> onRecovery = new CopyOnWriteArrayList<>();
    private final AtomicBoolean everUp = new AtomicBoolean();
    private final boolean canGoDown;
    /** Completed when the store goes down; a fresh one each time it comes back up. */
    private final AtomicReference<Sinks.Empty<Void>> downSignal = new AtomicReference<>(Sinks.empty());

    /** @param initiallyUp false until a probe answers (Redis configured), true for the in-memory store */
    public StoreState(boolean initiallyUp, LongSupplier clockMs) {
        this(initiallyUp, clockMs, true);
    }

    private StoreState(boolean initiallyUp, LongSupplier clockMs, boolean canGoDown) {
        this.canGoDown = canGoDown;
        this.up = new AtomicBoolean(initiallyUp);
        this.everUp.set(initiallyUp);
        this.clockMs = clockMs;
        if (!initiallyUp) downSinceMs.set(clockMs.getAsLong());
    }

    /**
     * A state that never goes down: for the in-memory store, and for a store with no probe to
     * bring it back up (each call then waits out its own timeout, as before this state existed).
     */
    public static StoreState alwaysUp() {
        return new StoreState(true, System::currentTimeMillis, false);
    }

    public boolean up() {
        return up.get();
    }

    /** Whether the store has answered at least once since this process started. */
    public boolean everUp() {
        return everUp.get();
    }

    /** When the store stopped answering (epoch ms); meaningful while down. */
    public long downSinceMs() {
        return downSinceMs.get();
    }

    /** A store call failed or timed out: skip the store until the probe says otherwise. */
    public void failed(Throwable cause) {
        if (canGoDown && up.compareAndSet(true, false)) {
            downSinceMs.set(clockMs.getAsLong());
            downSignal.get().tryEmitEmpty();
            log.warn(
                    "Redis stopped answering ({}): each tier's redis-down policy answers until it is back",
                    cause.toString());
        }
    }

    /** The probe got an answer. Runs the recovery hooks on the transition only. */
    public void answered() {
        // The next signal is in place before the state reads up: a call that sees up never races a spent one.
        if (!up.get()) downSignal.set(Sinks.empty());
        if (up.compareAndSet(false, true)) {
            long downMs = clockMs.getAsLong() - downSinceMs.get();
            if (everUp.getAndSet(true)) log.info("Redis answers again after {} ms", downMs);
            else log.info("Redis answers ({} ms after this process first tried)", downMs);
            for (Runnable hook : onRecovery) {
                try {
                    hook.run();
                } catch (RuntimeException e) {
                    log.warn("A recovery step failed: {}", e.toString());
                }
            }
        }
    }

    /**
     * Completes when the store goes down (at once if it is down now); never, for a state that
     * cannot go down. A store call races it, so it stops waiting as soon as any call has failed.
     */
    public Mono<Void> whenDown() {
        if (!canGoDown) return Mono.never();
        while (true) {
            Sinks.Empty<Void> signal = downSignal.get();
            if (!up.get()) return Mono.empty();
            // The signal read belongs to this up period only if no transition came in between.
            if (signal == downSignal.get()) return signal.asMono();
        }
    }

    /** Called on each down → up transition (e.g. hand what local fallbacks spent to the shared budget). */
    public void onRecovery(Runnable hook) {
        onRecovery.add(hook);
    }
}
