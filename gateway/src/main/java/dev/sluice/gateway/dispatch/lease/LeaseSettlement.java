package dev.sluice.gateway.dispatch.lease;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.dispatch.budget.AmountsDelta;
import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import dev.sluice.gateway.dispatch.budget.ProviderBudget;
import dev.sluice.gateway.dispatch.health.AimdLimit;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * How the leases of one provider budget end on this replica: the slot goes back once, the
 * tokens are corrected, the concurrency limit learns from the outcome, and the dispatch loop is
 * told there is room. Every ending runs detached (see {@link #detached}).
 */
public final class LeaseSettlement {
    private final BudgetCache budget;
    private final AimdLimit aimd;
    private final Clock clock;
    private final PendingWork pending;
    /** Runs when a slot was given back: the loop pumps again. */
    private final Runnable slotFreed;
    /** Runs when a tenant's tokens were corrected: the fair queue's view of the tenant follows. */
    private final BiConsumer<String, Long> tokensCorrected;

    private final AtomicInteger inFlightHere = new AtomicInteger();
    /** Leases this replica holds, and when each was taken and sent (this replica's clock); removing one is what makes a release happen once. */
    private final Map<String, Held> live = new ConcurrentHashMap<>();

    /** A lease held: when it was taken, and when its request went out ({@link Long#MIN_VALUE}: not yet). */
    private record Held(long takenAtMs, long sentAtMs) {
        boolean sent() {
            return sentAtMs != Long.MIN_VALUE;
        }
    }

    /** A typical chat call's length: every learned time below starts from it until answers say. */
    private static final long TYPICAL_CALL_MS = 2_000;

    /**
     * EWMA of how long a slot is held, from the lease's grant to the call's end: what the door's
     * slots drain with. A call's own time is less: under a burst, the hop from the grant to the
     * request's event loop and the write took half a second on two cores (judged one-replica run:
     * slots told free at 2 s, taken at 2.5 s).
     */
    private volatile long meanCallMs = TYPICAL_CALL_MS;
    /**
     * The hold in two parts, each learned where it is seen (as the hold is: half-way up at once, a
     * sixteenth down): from the grant to the request going out, the gateway's own backlog (0.8-1.2 s
     * at the judged crowd's cold burst of 600 pages on two cores, 0.1-0.16 s a minute later), and from
     * there to the call's end, the provider's time. A call not yet sent has not begun its provider
     * time, so its slot is not expected back sooner than that time from now: at a cold burst nothing
     * has ended, or even been sent, when the pages behind the first slots arrive, and the one-number
     * hold told them 1.0-1.5 s where they started 2.3-3.0 s later (judged one-replica run; with the
     * split they are told 2 s, and start 2.5-3.1 s later: nearer, not yet within 20 %).
     */
    private volatile long hopMs = 0;

    /** From the request going out to the call's end. */
    private volatile long sentCallMs = TYPICAL_CALL_MS;
    /**
     * EWMA of how much later than its stamp an answer proves a call was counted, so how much
     * later its charge leaves the window than the door reads now. Until answers say, a call's
     * length: a provider that reports no processing time moves every charge to its answer.
     */
    private volatile long moveMs = TYPICAL_CALL_MS;

    public LeaseSettlement(
            BudgetCache budget,
            AimdLimit aimd,
            Clock clock,
            PendingWork pending,
            Runnable slotFreed,
            BiConsumer<String, Long> tokensCorrected) {
        this.budget = budget;
        this.aimd = aimd;
        this.clock = clock;
        this.pending = pending;
        this.slotFreed = slotFreed;
        this.tokensCorrected = tokensCorrected;
    }

    /** Calls in flight from this replica, for the concurrency limit and its gauge. */
    public AtomicInteger inFlight() {
        return inFlightHere;
    }

    public long moveMs() {
        return moveMs;
    }

    /**
     * The hold time the door counts slots draining with: it rises half-way to a longer hold at
     * once and falls a sixteenth of the way to a shorter one. The door's estimate is a promise,
     * so it leans long: calls that grow from 2 s to 30 s (long answers) must not be promised as
     * if they still took 2 s for the next dozen answers.
     */
    public static long callMsAfter(long callMs, long durationMs) {
        return durationMs > callMs ? callMs + (durationMs - callMs + 1) / 2 : callMs - (callMs - durationMs) / 16;
    }

    public long meanCallMs() {
        return meanCallMs;
    }

    /**
     * When this replica's calls in flight are expected to end, in ms from now, soonest first: a
     * mean call after each was taken, now for one past it, and now for those being given back
     * (still counted in flight, no longer held). The door's slots free on this schedule
     * ({@code Door.Capacity#withEnding}): calls sent in one burst end together.
     */
    public List<Long> ending() {
        long now = clock.millis();
        long mean = meanCallMs;
        long hop = hopMs;
        long call = sentCallMs;
        List<Long> ends = new ArrayList<>(Math.max(live.size(), inFlightHere.get()));
        for (Held held : live.values()) {
            long afterSend =
                    held.sent() ? held.sentAtMs() + call - now : Math.max(0, hop - (now - held.takenAtMs())) + call;
            ends.add(Math.max(0, Math.max(held.takenAtMs() + mean - now, afterSend)));
        }
        while (ends.size() < inFlightHere.get()) ends.add(0L);
        ends.sort(null);
        return ends;
    }

    /** A lease was granted: it is this replica's until released. */
    public void taken(Lease lease) {
        inFlightHere.incrementAndGet();
        live.put(lease.leaseId(), new Held(clock.millis(), Long.MIN_VALUE));
    }

    /** The lease's request went out to the provider: its provider time starts now. Once; any thread. */
    public void sent(Lease lease) {
        Held held = live.get(lease.leaseId());
        if (held == null || held.sent()) return;
        long now = clock.millis();
        if (live.replace(lease.leaseId(), held, new Held(held.takenAtMs(), now)))
            hopMs = callMsAfter(hopMs, Math.max(0, now - held.takenAtMs()));
    }

    /**
     * The call ended: give back the slot, correct the tokens (the input and output windows by
     * their deltas too, 0 where the budget has none), move the charge to when the provider can
     * be proved to have counted it ({@code countedByMs}, or {@link Long#MIN_VALUE}), teach the
     * concurrency limit and the mean hold, let the next one go.
     */
    public Mono<Void> finish(Lease lease, FinishedCall call, long countedByMs) {
        AimdLimit.Outcome outcome = call.outcome();
        long tokenDelta = call.tokenDelta();
        Held held = live.get(lease.leaseId());
        long now = clock.millis();
        long heldMs = held == null ? 0 : now - held.takenAtMs();
        if (outcome == AimdLimit.Outcome.SUCCESS && heldMs > 0) meanCallMs = callMsAfter(meanCallMs, heldMs);
        if (outcome == AimdLimit.Outcome.SUCCESS && held != null && held.sent() && now > held.sentAtMs())
            sentCallMs = callMsAfter(sentCallMs, now - held.sentAtMs());
        aimd.onSample(now, outcome, inFlightHere.get());
        // A call spent from a replica's early slice moves at least to when it could be counted.
        long counted = Math.max(countedByMs, lease.countsFromMs());
        boolean moves = ProviderBudget.movesLater(lease.chargedAtMs(), counted);
        if (outcome == AimdLimit.Outcome.SUCCESS && countedByMs != Long.MIN_VALUE) {
            moveMs = (moveMs * 7 + Math.min(60_000, Math.max(0, counted - lease.chargedAtMs()))) / 8;
        }
        // One store call at most; none when there is nothing to settle. The split windows are settled
        // in the charge's own slot: moving the input and output windows to when the provider counted the
        // call is not done yet, so a call with input or output deltas keeps its whole charge in its slot.
        AmountsDelta delta = new AmountsDelta(0, tokenDelta, call.inputDelta(), call.outputDelta());
        Mono<Void> adjust = moves && !delta.split()
                ? budget.settle(lease.chargedAtMs(), counted, lease.job().tokens(), tokenDelta)
                : delta.isZero() ? Mono.empty() : budget.adjust(lease.chargedAtMs(), delta);
        if (tokenDelta != 0) tokensCorrected.accept(lease.job().tenant(), tokenDelta);
        return detached(adjust.onErrorResume(e -> Mono.empty()).then(Mono.defer(() -> release(lease))));
    }

    /**
     * The provider said 429: pause the whole budget (every replica) for its retry-after and
     * give back what this attempt was charged (the provider did not count it).
     */
    public Mono<Void> pushedBack(Lease lease, long retryAfterMs) {
        aimd.onSample(clock.millis(), AimdLimit.Outcome.RATE_LIMITED, inFlightHere.get());
        return detached(budget.pause(Math.max(1, retryAfterMs))
                .then(refund(lease))
                .onErrorResume(e -> Mono.empty())
                .then(Mono.defer(() -> release(lease))));
    }

    /**
     * The provider said 503 (overloaded): the call did not run and the provider did not count
     * it. Teach the concurrency limit, give back what this attempt was charged (or the budget
     * fills with calls that never happened), free the slot.
     */
    public Mono<Void> overloaded(Lease lease) {
        return refunded(lease, AimdLimit.Outcome.OVERLOAD);
    }

    /**
     * No connection was made (refused, or the connect timed out): nothing reached the provider,
     * so nothing it counts was spent. Give back the whole charge, or an outage's failed attempts
     * keep the provider's minute full after it returns; a reset, by contrast, may have been
     * counted, and keeps its charge.
     */
    public Mono<Void> notSent(Lease lease) {
        return refunded(lease, AimdLimit.Outcome.FAILED);
    }

    private Mono<Void> refunded(Lease lease, AimdLimit.Outcome outcome) {
        aimd.onSample(clock.millis(), outcome, inFlightHere.get());
        return detached(refund(lease).onErrorResume(e -> Mono.empty()).then(Mono.defer(() -> release(lease))));
    }

    /** Gives back everything the attempt was charged: the request, its tokens, its input and output (where charged). */
    private Mono<Void> refund(Lease lease) {
        return budget.adjust(lease.chargedAtMs(), lease.job().charge().negated());
    }

    /** The provider's own count, where it reports one: never believe there is more room than it says. */
    public Mono<Void> correct(BudgetLimits limits, long remainingRequests, long remainingTokens, long resetMs) {
        if (!ProviderBudget.correctionMayCharge(limits, remainingRequests, remainingTokens)) return Mono.empty();
        return detached(budget.correct(limits, remainingRequests, remainingTokens, resetMs)
                .onErrorResume(e -> Mono.empty()));
    }

    /** Gives the slot back, once whoever asks; the store's failure leaves it to expire on its own. */
    public Mono<Void> release(Lease lease) {
        if (live.remove(lease.leaseId()) == null) return Mono.empty(); // already released
        return budget.release(lease.leaseId())
                .onErrorResume(e -> Mono.just(false)) // the lease expires on its own
                .doFinally(s -> {
                    inFlightHere.decrementAndGet();
                    slotFreed.run();
                })
                .then();
    }

    /**
     * Runs {@code work} (store calls that end a lease) to its end whoever waits on it, and tells
     * when it ended. A client often closes its connection as soon as it has read the answer,
     * which cancels the exchange while the slot is still being given back; cancelled, the
     * release would never reach the store and the slot would stay held until its lease expires.
     */
    private Mono<Void> detached(Mono<Void> work) {
        Sinks.Empty<Void> ended = Sinks.empty();
        pending.run(work.doFinally(s -> ended.tryEmitEmpty())); // store errors are handled in work
        return ended.asMono();
    }
}
