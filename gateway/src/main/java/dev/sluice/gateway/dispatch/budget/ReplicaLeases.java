package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.support.Batches;
import dev.sluice.gateway.support.Drainable;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The shared budget without a round trip per call: each replica spends from a slice it leases
 * ({@link ReplicaSlice}, {@link ProviderBudgetStore#lease}) and queues every settlement, release
 * and correction for the next lease call, made every {@code flushEvery} while there is something
 * to send (or at once when {@code flushMax} settlements wait, or when the slice cannot cover a
 * call). So a call costs the store nothing under steady traffic, and the store sees one call per
 * budget per flush whatever the rate.
 *
 * <p>The bound: a slice is charged to the shared window when it is taken, like a call, so the
 * replicas together never hold or spend more than the limits, and in-flight slots are held in
 * the shared lease set under this replica's name. As the window fills, slices shrink to one call
 * ({@link ProviderBudget#grant}): a nearly full budget is served call by call, as before.
 *
 * <p>What a crash costs: the queued settlements (at most one flush's, {@code flushMax}) never
 * land, so those calls stay charged at their estimates until they leave the window; the unspent
 * slice (at most one horizon's use) stays charged until it leaves the window (a minute); the held
 * slots are taken by nobody until their {@code slotTtl} passes.
 */
public final class ReplicaLeases implements ProviderBudgetStore, Drainable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaLeases.class);

    private final ProviderBudgetStore store;
    private final ReplicaSlice.Terms terms;
    private final Clock clock;
    private final String replica = UUID.randomUUID().toString();
    /** Each budget's slice, with the settlements queued for its next call. */
    private final Batches<String, ReplicaSlice> slices;
    /** Leases taken on the store's share ({@link #tryAcquireOnShare}), not from a slice: released there. */
    private final Map<String, String> outside = new ConcurrentHashMap<>();
    /** Store time less this replica's, from the last answer (Redis TIME against the local clock). */
    private volatile long offsetMs;

    public ReplicaLeases(
            ProviderBudgetStore store,
            Duration horizon,
            Duration slotTtl,
            Duration flushEvery,
            int flushMax,
            Clock clock,
            Scheduler timer) {
        this.store = store;
        this.terms = new ReplicaSlice.Terms(horizon.toMillis(), slotTtl.toMillis(), flushEvery.toMillis(), flushMax);
        this.clock = clock;
        this.slices = new Batches<>(
                "budget slices",
                k -> new ReplicaSlice(terms),
                Duration.ofMillis(terms.flushEveryMs()),
                timer,
                this::flushDue,
                this::giveBack);
    }

    private ReplicaSlice slice(String key) {
        return slices.of(key);
    }

    private long storeNow() {
        return clock.millis() + offsetMs;
    }

    /** Spent from the slice, or asked of the store when it cannot cover the call; a slice's answer always carries the schedule. */
    @Override
    public Mono<BudgetDecision> tryAcquire(String key, BudgetLimits limits, Acquire call) {
        Amounts charge = call.chargeOn(limits);
        return Mono.defer(() -> acquire(key, slice(key), limits, charge, call.leaseId(), true));
    }

    private Mono<BudgetDecision> acquire(
            String key, ReplicaSlice s, BudgetLimits limits, Amounts call, String leaseId, boolean mayAsk) {
        BudgetDecision spent = spend(key, s, limits, call, leaseId);
        if (spent != null) return Mono.just(spent);
        Mono<SliceGrant> running = s.runningCall();
        if (running == null) return mayAsk ? ask(key, s, limits, call, leaseId) : notNow(s, limits);
        // A refresh is under way: its slice may cover this call. The flusher starts nothing meanwhile,
        // so once it ends this call's own ask goes next (else, on a full budget, where refreshes grant
        // nothing, a steady flow of them could keep the call waiting).
        s.awaitingAsk(true);
        // Once, whether the wait ends or its caller gives up (a timeout cancels it): a count left
        // up would hold the flusher off for good.
        AtomicBoolean ended = new AtomicBoolean();
        Runnable end = () -> {
            if (ended.compareAndSet(false, true)) s.awaitingAsk(false);
        };
        return running.onErrorResume(e -> Mono.empty())
                .then(Mono.defer(() -> {
                    end.run();
                    BudgetDecision after = spend(key, s, limits, call, leaseId);
                    if (after != null) return Mono.just(after);
                    return mayAsk ? ask(key, s, limits, call, leaseId) : notNow(s, limits);
                }))
                .doFinally(signal -> end.run());
    }

    /** Spends from the slice, and starts a refresh ahead of need when it runs low; null when it cannot cover the call. */
    private BudgetDecision spend(String key, ReplicaSlice s, BudgetLimits limits, Amounts call, String leaseId) {
        BudgetDecision spent = s.trySpend(call, leaseId, limits, storeNow());
        if (spent != null && s.low(storeNow()))
            send(key, s, limits, Amounts.ZERO, false).subscribe(g -> {}, e -> {});
        return spent;
    }

    /** This call's own ask, then the call spent from what it granted, or the store's refusal. */
    private Mono<BudgetDecision> ask(String key, ReplicaSlice s, BudgetLimits limits, Amounts call, String leaseId) {
        return send(key, s, limits, call, true)
                .flatMap(grant -> grant.admitted()
                        ? acquire(key, s, limits, call, leaseId, false)
                        : Mono.just(new BudgetDecision(
                                false, grant.refusal(), grant.waitMs(), s.unspent(grant.snapshot()))));
    }

    /** Granted, yet not spendable now (a pause or a lowered limit came between): wait as for a slot. */
    private Mono<BudgetDecision> notNow(ReplicaSlice s, BudgetLimits limits) {
        BudgetSnapshot view = s.view(limits, storeNow());
        return Mono.just(new BudgetDecision(
                false,
                BudgetRefusal.IN_FLIGHT,
                limits.inFlightHintMs(),
                view != null ? view : BudgetSnapshot.empty(limits, storeNow())));
    }

    /**
     * One lease call for this budget, or the one under way (then another after it for this
     * {@code need}, if any): the slice's queued settlements and unspent rest go with it. Runs to
     * its end whoever waits on it, so a caller that leaves cannot lose a batch.
     */
    private Mono<SliceGrant> send(String key, ReplicaSlice s, BudgetLimits limits, Amounts need, boolean needSlot) {
        return send(key, s, limits, need, needSlot, false);
    }

    private Mono<SliceGrant> send(
            String key, ReplicaSlice s, BudgetLimits limits, Amounts need, boolean needSlot, boolean last) {
        SliceAsk ask;
        synchronized (s) {
            Mono<SliceGrant> running = s.runningCall();
            if (running != null) {
                return need.isZero() && !needSlot && !last
                        ? running
                        : running.onErrorResume(e -> Mono.empty())
                                .then(Mono.defer(() -> send(key, s, limits, need, needSlot, last)));
            }
            ask = s.ask(replica, need, needSlot, limits, storeNow(), last);
            long sentAt = clock.millis();
            Mono<SliceGrant> call = store.lease(key, limits, ask)
                    .doOnNext(g -> {
                        offsetMs = g.snapshot().nowMs() - (sentAt + clock.millis()) / 2;
                        s.granted(g, ask.renewSlots());
                    })
                    .switchIfEmpty(Mono.error(() -> new IllegalStateException("the budget store answered nothing")))
                    .doOnError(e -> {
                        s.failed();
                        log.warn(
                                "Budget {}: lease call failed ({}); {} settlements may be lost",
                                key,
                                e.toString(),
                                ask.settlements().size());
                    })
                    .cache();
            s.running(call);
            call.subscribe(g -> {}, e -> {});
            return call;
        }
    }

    /** The flusher's tick: every budget with something to send makes its call. */
    void flushDue() {
        long local = clock.millis();
        long now = local + offsetMs;
        slices.forEach((key, s) -> {
            if (s.due(now, local)) send(key, s, s.limits(), Amounts.ZERO, false).subscribe(g -> {}, e -> {});
        });
    }

    /**
     * Spent from the slice when it covers the call (no round trip either way), else acquired on
     * the store's share of the limits: a request with no time left to wait for a slice. Such a
     * lease is released there, not in the slice.
     */
    @Override
    public Mono<BudgetDecision> tryAcquireOnShare(String key, BudgetLimits limits, Acquire call) {
        Amounts charge = call.chargeOn(limits);
        return Mono.defer(() -> {
            ReplicaSlice s = slice(key);
            // The acquire given up for this may have been spent from the slice just as it was: taken once, not twice.
            s.release(call.leaseId());
            BudgetDecision spent = spend(key, s, limits, charge, call.leaseId());
            if (spent != null) return Mono.just(spent);
            return store.tryAcquireOnShare(key, limits, call).doOnNext(d -> {
                if (d.admitted()) outside.put(call.leaseId(), key);
            });
        });
    }

    @Override
    public void queuedElsewhere(String key, Amounts queued) {
        slice(key).queuedElsewhere(queued);
    }

    @Override
    public Mono<BudgetSnapshot> snapshotOfShare(String key, BudgetLimits limits) {
        return withUnspent(slices.get(key), store.snapshotOfShare(key, limits));
    }

    @Override
    public Mono<Boolean> release(String key, String leaseId) {
        return Mono.defer(() -> {
            if (outside.remove(leaseId) != null) return store.release(key, leaseId);
            ReplicaSlice s = slices.get(key);
            return Mono.just(s != null && s.release(leaseId));
        });
    }

    /** Queued for the next call (sent at once when the batch is full); done when queued, not when sent. */
    private Mono<Void> queue(String key, BudgetSettlement settlement) {
        return Mono.fromRunnable(() -> {
            ReplicaSlice s = slice(key);
            boolean direct = slices.direct();
            if ((s.queue(settlement, clock.millis()) || direct) && s.limits() != null) {
                // After the shutdown's flush, nothing new is taken with it: only settled and given back.
                send(key, s, s.limits(), Amounts.ZERO, false, direct).subscribe(g -> {}, e -> {});
            }
        });
    }

    @Override
    public Mono<Void> settle(String key, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        return queue(
                key, new BudgetSettlement(chargedAtMs, countedByMs, Math.max(0, chargedTokens), deltaTokens, 0, 0, 0));
    }

    @Override
    public Mono<Void> adjust(String key, long chargedAtMs, AmountsDelta delta) {
        if (delta.isZero()) return Mono.empty();
        return queue(key, BudgetSettlement.adjust(chargedAtMs, delta));
    }

    /** A push-back: at once, for every replica, and this replica's slice stops spending now. */
    @Override
    public Mono<Long> pause(String key, long pauseMs) {
        return store.pause(key, pauseMs).doOnNext(until -> slice(key).paused(until));
    }

    @Override
    public Mono<Void> correct(
            String key, BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        return store.correct(key, limits, remainingRequests, remainingTokens, resetMs);
    }

    /** The store's budget, with this replica's unspent slice and spare slots counted as free (they are, to it). */
    @Override
    public Mono<BudgetSnapshot> snapshot(String key, BudgetLimits limits) {
        return withUnspent(slices.get(key), store.snapshot(key, limits));
    }

    @Override
    public Mono<SliceGrant> lease(String key, BudgetLimits limits, SliceAsk ask) {
        return store.lease(key, limits, ask);
    }

    /** {@code read} with {@code s}'s unspent slice and spare slots counted as free; as it is without a slice. */
    private static Mono<BudgetSnapshot> withUnspent(ReplicaSlice s, Mono<BudgetSnapshot> read) {
        return s == null ? read : read.map(s::unspent);
    }

    /** The bean's destroy method: the flusher stops (the last batch went in {@link #flush}, while Redis still answered). */
    public void close() {
        slices.close();
    }

    /**
     * Shutdown, before the Redis client stops: every slice's settlements sent and its unspent rest
     * and spare slots given back, waiting at most {@code wait}. The flusher keeps running: a
     * context stopped and started again (as test contexts are) spends from new slices.
     */
    @Override
    public void flush(Duration wait) {
        slices.flush(wait);
    }

    /** A slice's last call: its settlements, its rest and spare slots given back; null for one never used (no limits). */
    private Mono<Void> giveBack(String key, ReplicaSlice s) {
        BudgetLimits limits = s.limits();
        if (limits == null) return null;
        return send(key, s, limits, Amounts.ZERO, false, true)
                .onErrorResume(x -> Mono.empty())
                .then();
    }

    /** Batches again (a context started after a stop). */
    @Override
    public void resume() {
        slices.resume();
    }

    /** This replica's slice of a budget (tests). */
    ReplicaSlice sliceOf(String key) {
        return slices.get(key);
    }
}
