package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.WindowLimit;
import dev.sluice.gateway.support.Batches;
import dev.sluice.gateway.support.Drainable;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The shared quota store with its settlements sent in batches: a served request's correction
 * (actual tokens against the estimate) waits up to {@code every}, or until {@code max} of one
 * tenant wait, and goes with the tenant's others in one call ({@link QuotaStore#adjustAll}: one
 * script, one round trip, whatever the batch). Admission and peeks go straight through, and so
 * do refunds (a request that never reached the provider gives its request back at once: the
 * tenant may retry at once).
 *
 * <p>What it costs: a tenant's window shows the estimate instead of the usage for up to
 * {@code every} after the answer; a crash loses the corrections waiting (at most one batch per
 * tenant), which then stay charged at their estimates until they leave the window.
 */
public final class BatchedSettlements implements QuotaStore, Drainable {
    private static final Logger log = LoggerFactory.getLogger(BatchedSettlements.class);

    /** A tenant's charges in one set of windows and budget periods: what one batch corrects. */
    private record Tenant(String id, List<WindowLimit> windows, List<SpendLimit> spends) {}

    private static final class Batch {
        final List<Correction> corrections = new ArrayList<>();
        long firstAtMs;
    }

    private final QuotaStore store;
    private final Duration timeout;
    private final long everyMs;
    private final int max;
    private final Clock clock;
    private final Batches<Tenant, Batch> waiting;

    public BatchedSettlements(
            QuotaStore store, Duration timeout, Duration every, int max, Clock clock, Scheduler timer) {
        if (every.toMillis() < 1 || max < 1)
            throw new IllegalArgumentException("batch every must be at least 1ms and max at least 1");
        this.store = store;
        this.timeout = timeout;
        this.everyMs = every.toMillis();
        this.max = max;
        this.clock = clock;
        this.waiting = new Batches<>(
                "quota settlements",
                t -> new Batch(),
                Duration.ofMillis(everyMs),
                timer,
                this::flushDue,
                this::sendAll);
    }

    @Override
    public Mono<QuotaDecision> acquire(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, Charge charge) {
        return store.acquire(tenantId, windows, spends, charge);
    }

    @Override
    public Mono<List<WindowUsage>> peek(String tenantId, List<WindowLimit> windows) {
        return store.peek(tenantId, windows);
    }

    @Override
    public Mono<QuotaDecision> peek(String tenantId, List<WindowLimit> windows, List<SpendLimit> spends) {
        return store.peek(tenantId, windows, spends);
    }

    /**
     * A correction that gives a request back goes at once, with the others in the call; one of tokens or
     * cost only waits for its tenant's batch; one of nothing is dropped.
     */
    @Override
    public Mono<Void> adjustAll(
            String tenantId, List<WindowLimit> windows, List<SpendLimit> spends, List<Correction> corrections) {
        List<Correction> now = new ArrayList<>();
        List<Correction> later = new ArrayList<>();
        for (Correction c : corrections) {
            if (c.deltaRequests() != 0) now.add(c);
            else if (c.deltaTokens() != 0 || c.deltaMicros() != 0) later.add(c);
        }
        Mono<Void> direct = now.isEmpty() ? Mono.empty() : store.adjustAll(tenantId, windows, spends, now);
        return later.isEmpty() ? direct : direct.then(batched(new Tenant(tenantId, windows, spends), later));
    }

    private Mono<Void> batched(Tenant t, List<Correction> corrections) {
        // Whether to batch is decided when the settlement runs, not when it was asked for: shutdown may begin between.
        return Mono.defer(() -> {
            if (waiting.direct()) return store.adjustAll(t.id(), t.windows(), t.spends(), corrections);
            List<Correction> full = null;
            boolean straggler;
            Batch b = waiting.of(t);
            synchronized (b) {
                if (b.corrections.isEmpty()) b.firstAtMs = clock.millis();
                b.corrections.addAll(corrections);
                // The shutdown's flush (which goes direct before it drains) may have drained this batch just before the
                // add.
                straggler = waiting.direct();
                if (straggler || b.corrections.size() >= max) full = take(b);
            }
            if (full == null) return Mono.<Void>empty();
            Mono<Void> sent = send(t, full);
            return straggler ? sent : Mono.<Void>empty(); // at shutdown the caller waits for it, as for a direct one
        });
    }

    private static List<Correction> take(Batch b) {
        List<Correction> out = new ArrayList<>(b.corrections);
        b.corrections.clear();
        return out;
    }

    /** The timer's tick: sends what has waited long enough; drops tenants with nothing waiting. */
    void flushDue() {
        long now = clock.millis();
        waiting.forEach((t, b) -> {
            List<Correction> due = null;
            synchronized (b) {
                if (b.corrections.isEmpty()) {
                    waiting.forget(t, b);
                } else if (now - b.firstAtMs >= everyMs) {
                    due = take(b);
                }
            }
            if (due != null) send(t, due);
        });
    }

    /** At shutdown: all the tenant's batch holds, sent; null when it holds nothing. */
    private Mono<Void> sendAll(Tenant t, Batch b) {
        List<Correction> due;
        synchronized (b) {
            due = b.corrections.isEmpty() ? null : take(b);
        }
        return due == null ? null : send(t, due);
    }

    private Mono<Void> send(Tenant t, List<Correction> corrections) {
        Mono<Void> call = store.adjustAll(t.id(), t.windows(), t.spends(), corrections)
                .timeout(timeout)
                .doOnError(e -> log.warn(
                        "Quota settlements of tenant {} not applied ({}): {} corrections lost; those requests stay "
                                + "charged at their estimates",
                        t.id(),
                        e.toString(),
                        corrections.size()))
                .onErrorResume(e -> Mono.empty())
                .cache();
        call.subscribe();
        return call;
    }

    /** Shutdown, before the Redis client stops: what waits is sent, waiting at most {@code wait} ({@link Batches#flush}). */
    @Override
    public void flush(Duration wait) {
        waiting.flush(wait);
    }

    @Override
    public void resume() {
        waiting.resume();
    }

    /** The flusher stops (the bean's end). */
    public void close() {
        waiting.close();
    }
}
