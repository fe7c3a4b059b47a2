package dev.sluice.gateway.dispatch.budget;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * This replica's slice of one shared provider budget: requests, tokens and in-flight slots taken
 * from the store in one call ({@link ProviderBudgetStore#lease}) and spent here without a round
 * trip, with the settlements queued until the next call. The pure core of {@link ReplicaLeases}:
 * every method takes the store's time, and the class is a monitor (the dispatch loop spends,
 * answer threads release and settle, the flusher asks).
 *
 * <p>How much it holds follows use: a slice is what was spent in the last horizon, slots are the
 * calls in flight plus a few spare; an idle replica asks for nothing, so it holds nothing after
 * its next call. The slice is given back whole on every call and a fresh one taken: it is never
 * older than the flush interval under traffic, and never older than the horizon at all.
 */
final class ReplicaSlice {
    /** How the slices are sized and how often they are refreshed. */
    record Terms(long horizonMs, long slotTtlMs, long flushEveryMs, int flushMax) {
        Terms {
            if (horizonMs < 1 || slotTtlMs < 1 || flushEveryMs < 1 || flushMax < 1) {
                throw new IllegalArgumentException(
                        "slice terms must be positive: horizon " + horizonMs + " ms, slot ttl " + slotTtlMs
                                + " ms, flush every " + flushEveryMs + " ms, flush max " + flushMax);
            }
        }
    }

    /** A time long past that differences with store times cannot overflow. */
    private static final long NEVER = Long.MIN_VALUE / 4;

    private final Terms terms;
    private Amounts left = Amounts.ZERO;
    private long chargedAtMs;
    private long takenAtMs = NEVER;
    private int held;
    private int inUse;
    private final Set<String> live = new HashSet<>();
    private List<BudgetSettlement> queued = new ArrayList<>();
    private long firstQueuedAtMs;
    private BudgetSnapshot shared;
    private long lastCallAtMs = NEVER;
    private long renewedAtMs = NEVER;
    private boolean calling;
    private int awaitingAsk; // calls waiting to make their own ask once the refresh under way ends
    private BudgetLimits limits;
    // Use over the last two horizons, to size the next slice by.
    private Amounts spentNow = Amounts.ZERO;
    private Amounts spentBefore = Amounts.ZERO;
    private long periodStartMs = NEVER;
    private int peakNow; // the most calls in flight at once, this horizon and the one before
    private int peakBefore;
    private Amounts queuedElsewhere = Amounts.ZERO;

    ReplicaSlice(Terms terms) {
        this.terms = terms;
    }

    /**
     * Spends one call from the slice, if it covers it now: unexpired, not paused, a free slot held,
     * under the concurrency limit. Returns the admission, or null (ask the store).
     */
    synchronized BudgetDecision trySpend(Amounts call, String leaseId, BudgetLimits limits, long nowMs) {
        this.limits = limits;
        if (shared == null || calling || nowMs - takenAtMs >= terms.horizonMs() || !left.covers(call)) return null;
        if (inUse >= held || inUse >= limits.maxInFlight() || shared.pausedUntilMs() > nowMs) return null;
        if (!live.add(leaseId)) return null;
        left = left.minus(call);
        inUse++;
        count(call, nowMs);
        return new BudgetDecision(true, null, 0, view(limits, nowMs), chargedAtMs);
    }

    private void count(Amounts call, long nowMs) {
        roll(nowMs);
        spentNow = spentNow.plus(call);
        peakNow = Math.max(peakNow, inUse);
    }

    private void roll(long nowMs) {
        if (nowMs - periodStartMs >= 2 * terms.horizonMs()) { // first use, or idle two horizons: nothing recent
            spentBefore = Amounts.ZERO;
            spentNow = Amounts.ZERO;
            peakBefore = 0;
            peakNow = inUse;
            periodStartMs = nowMs;
        } else if (nowMs - periodStartMs >= terms.horizonMs()) {
            spentBefore = spentNow;
            peakBefore = peakNow;
            spentNow = Amounts.ZERO;
            peakNow = inUse;
            periodStartMs += terms.horizonMs();
        }
    }

    /** The call ended here: its slot is free for this replica's next call. True once per lease. */
    synchronized boolean release(String leaseId) {
        if (!live.remove(leaseId)) return false;
        inUse--;
        return true;
    }

    /** Queues a settlement for the next call; true when the queue is full and should go now. */
    synchronized boolean queue(BudgetSettlement settlement, long localNowMs) {
        if (queued.isEmpty()) firstQueuedAtMs = localNowMs;
        queued.add(settlement);
        return queued.size() >= terms.flushMax();
    }

    /** Whether the timer should make a call now: settlements waiting, an old slice, spare slots idle, slots to renew. */
    synchronized boolean due(long nowMs, long localNowMs) {
        if (calling || limits == null || awaitingAsk > 0) return false;
        if (!queued.isEmpty() && localNowMs - firstQueuedAtMs >= terms.flushEveryMs()) return true;
        if (!left.isZero() && nowMs - takenAtMs >= terms.horizonMs()) return true;
        if (held > 0 && nowMs - renewedAtMs >= terms.slotTtlMs() / 3) return true;
        return held > inUse + spare(nowMs) && nowMs - lastCallAtMs >= terms.horizonMs();
    }

    /** Whether the slice runs low after a spend: the next call is best made before a job waits on it. */
    synchronized boolean low(long nowMs) {
        if (calling) return false;
        Amounts want = want(Amounts.ZERO, nowMs);
        return left.tokens() * 2 < want.tokens() || left.requests() * 2 < want.requests() || held - inUse < 1;
    }

    synchronized BudgetLimits limits() {
        return limits;
    }

    /** A call waits for the refresh under way to make its own ask: the flusher holds off meanwhile. */
    synchronized void awaitingAsk(boolean waiting) {
        awaitingAsk = Math.max(0, awaitingAsk + (waiting ? 1 : -1));
    }

    private Mono<SliceGrant> running;

    /** The call under way, set by {@link ReplicaLeases} right after {@link #ask}. */
    synchronized void running(Mono<SliceGrant> call) {
        running = call;
    }

    /** The call under way, or null when none is. */
    synchronized Mono<SliceGrant> runningCall() {
        return calling ? running : null;
    }

    /**
     * The next call's ask, and the call under way from here: the unspent rest goes back with it
     * (nothing is spent from it meanwhile), the queued settlements go with it.
     *
     * @param last shutdown: nothing new is taken and every spare slot goes back
     */
    synchronized SliceAsk ask(
            String replica, Amounts need, boolean needSlot, BudgetLimits limits, long nowMs, boolean last) {
        this.limits = limits;
        calling = true;
        boolean renew = nowMs - renewedAtMs >= terms.slotTtlMs() / 3;
        int wantSlots = last ? inUse : inUse + (needSlot ? 1 : 0) + spare(nowMs);
        SliceAsk ask = new SliceAsk(
                replica,
                queued,
                left,
                chargedAtMs,
                need,
                needSlot,
                last ? need : want(need, nowMs),
                inUse,
                held,
                wantSlots,
                terms.slotTtlMs(),
                renew);
        queued = new ArrayList<>();
        left = Amounts.ZERO;
        return ask;
    }

    /**
     * Sized by use: what was spent in the busier of the last two horizons, and the need on top;
     * only the need where the room left would not also cover what other replicas have queued
     * ({@link #queuedElsewhere}).
     */
    private Amounts want(Amounts need, long nowMs) {
        roll(nowMs);
        Amounts want = spentNow.max(spentBefore).plus(need);
        if (queuedElsewhere.isZero() || shared == null || limits == null) return want;
        // The room as the last store call left it, what this slice holds counted free (it goes back with the ask); not
        // aged: this runs after every spend, and an older view only errs towards the need.
        long requests =
                spare(limits.requestsPerMinute(), shared.usedRequests(), left.requests(), queuedElsewhere.requests());
        long tokens = spare(limits.tokensPerMinute(), shared.usedTokens(), left.tokens(), queuedElsewhere.tokens());
        return new Amounts(
                requests / 2 < want.requests() ? need.requests() : want.requests(),
                tokens / 2 < want.tokens() ? need.tokens() : want.tokens(),
                want.input(),
                want.output());
    }

    /** The room left under {@code limit} with {@code used} taken, {@code held} of it free here, less {@code queued}. */
    private static long spare(long limit, long used, long held, long queued) {
        long room = limit - Math.max(0, used - held);
        return Math.max(0, room - queued);
    }

    /**
     * What the other replicas' lines hold for this budget, as the last share of the fair queues
     * said (zero alone). Their doors promised those calls a start in the room the budget shows; a
     * slice held here beyond this replica's need is room they cannot take until it comes back.
     * Seen in simulated time: a replica whose line had drained took a slice of 22 calls' tokens
     * every 100 ms (what it had spent in the last horizon), and the other replica's calls promised
     * a start in that room were dropped at their deadline.
     */
    synchronized void queuedElsewhere(Amounts queued) {
        queuedElsewhere = queued;
    }

    /**
     * Spare slots beyond those in use: up to the recent peak of calls in flight, and a quarter of
     * it (at least one) more, so a pace that holds steady rarely finds every slot taken; none once idle.
     */
    private int spare(long nowMs) {
        roll(nowMs);
        int peak = Math.max(peakNow, peakBefore);
        if (peak == 0 && inUse == 0) return 0;
        return Math.max(0, peak - inUse) + Math.max(1, peak / 4);
    }

    /** The store answered: the new slice, the slots held, the budget as it is now. */
    synchronized void granted(SliceGrant grant, boolean renewed) {
        calling = false;
        shared = grant.snapshot();
        left = grant.granted();
        chargedAtMs = grant.chargedAtMs();
        takenAtMs = grant.snapshot().nowMs();
        lastCallAtMs = takenAtMs;
        if (renewed) renewedAtMs = takenAtMs;
        else if (held == 0) renewedAtMs = takenAtMs; // spares taken now are fresh
        held = grant.slotsHeld();
    }

    /**
     * The call failed or went unanswered: its settlements and the rest it gave back may or may not
     * have landed (at most one batch is lost; the rest stays counted, the safe side). The slots
     * held are kept as they were: they expire in the store unless a later call renews them.
     */
    synchronized void failed() {
        calling = false;
    }

    /** A pause this replica set (an upstream 429): no more spending from the slice until it ends. */
    synchronized void paused(long untilMs) {
        if (shared != null && untilMs > shared.pausedUntilMs()) {
            shared = shared.withPausedUntil(untilMs);
        }
    }

    /** The budget at {@code nowMs} as this replica last saw it, its unspent slice and spare slots counted as free. */
    synchronized BudgetSnapshot view(BudgetLimits limits, long nowMs) {
        return shared == null ? null : unspent(shared.withLimits(limits)).agedBy(nowMs - shared.nowMs());
    }

    /** A store snapshot with this replica's unspent slice and spare slots taken out of the used. */
    synchronized BudgetSnapshot unspent(BudgetSnapshot s) {
        List<BudgetSnapshot.Leaving> leaving = s.leaving();
        if (leaving != null && (left.tokens() > 0 || left.requests() > 0)) {
            long leavesAt =
                    (Math.floorDiv(chargedAtMs, ProviderBudget.SLOT_MS) + ProviderBudget.HELD) * ProviderBudget.SLOT_MS;
            List<BudgetSnapshot.Leaving> out = new ArrayList<>(leaving.size());
            for (BudgetSnapshot.Leaving l : leaving) {
                if (l.atMs() == leavesAt) {
                    long t = Math.max(0, l.tokens() - left.tokens());
                    long r = Math.max(0, l.requests() - left.requests());
                    if (t > 0 || r > 0) out.add(new BudgetSnapshot.Leaving(l.atMs(), t, r));
                } else {
                    out.add(l);
                }
            }
            leaving = out;
        }
        int inFlight = Math.max(0, s.inFlight() - held + inUse);
        return s.withUsed(Math.max(0, s.usedRequests() - left.requests()), Math.max(0, s.usedTokens() - left.tokens()))
                .withSplitUsed(
                        Math.max(0, s.usedInputTokens() - left.input()),
                        Math.max(0, s.usedOutputTokens() - left.output()))
                .withInFlight(inFlight)
                .withLeaving(leaving);
    }

    /** The slots this replica holds (tests). */
    synchronized int held() {
        return held;
    }
}
