package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.quota.SlidingWindow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pure core of one provider budget: requests and tokens in a rolling 60 s window (the
 * tenant quota's {@link SlidingWindow}: 61 one-second slots, no overshoot in any exact
 * minute), in-flight slots held as leases that expire, and a pause set by an upstream 429.
 * Admission checks all of them and takes all of them, or nothing, in one step. Where the
 * provider meters input and output apart ({@link BudgetLimits#split}), an input window (the
 * calibrated prompt) and an output window (max_tokens, settled to what was written) join them;
 * without a split they are never touched, so such a budget costs what it did before.
 *
 * <p>Time is an argument. Not thread-safe: the in-memory store locks per budget; the
 * {@code budget_*.lua} scripts are this class in Redis, line for line.
 */
public final class ProviderBudget {
    public static final long WINDOW_MS = 60_000;
    public static final long SLOT_MS = SlidingWindow.slotMs(WINDOW_MS);
    /** Slots a charge stays in the window (see {@link SlidingWindow}). */
    static final int HELD = SlidingWindow.SLOTS + 1;

    private final SlidingWindow window = new SlidingWindow(WINDOW_MS, true); // what left lately: see correct
    /** Input and output tokens (their request counts unused): read only when the limits have them. */
    private final SlidingWindow input = new SlidingWindow(WINDOW_MS);

    private final SlidingWindow output = new SlidingWindow(WINDOW_MS);
    private final Map<String, Long> leases = new HashMap<>(); // lease id → expires at (ms)
    private long pausedUntilMs;
    /** The phantom usage the upstream's last word charged ({@link #correct}), per dimension: taken back at its next. */
    private final Phantom phantomTokens = new Phantom();

    private final Phantom phantomRequests = new Phantom();

    /** An amount charged in one slot by a correction; slot MIN_VALUE: none. */
    private static final class Phantom {
        long slot = Long.MIN_VALUE;
        long amount;

        void set(long slot, long amount) {
            this.slot = slot;
            this.amount = amount;
        }
    }

    /**
     * Admits {@code call} if the pause, the window, the slots and (where the limits have them) the
     * input and output windows all allow it, charging the input and output only where they do.
     * Caps count as {@link SlidingWindow#cap} (at most {@link SlidingWindow#MAX_AMOUNT}) and
     * every comparison is room left against the amount, never a sum: no overflow, and the
     * same answers as {@code budget_acquire.lua} at every edge value.
     */
    public BudgetDecision tryAcquire(BudgetLimits limits, Acquire call, long nowMs) {
        Amounts charge = call.charge();
        advance(limits, nowMs);
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        Refusal r = refusal(limits, charge, true, (long) limits.maxInFlight() - leases.size(), true, nowMs);
        BudgetRefusal refusal = r.refusal;
        long wait = r.wait;
        if (refusal == null) {
            // Stamped when the provider may count it: it then leaves this window no sooner than the provider's.
            long at = nowMs + limits.countDelayMs();
            window.charge(at, charge.tokens(), charge.requests());
            if (limitIn && charge.input() > 0) input.charge(at, charge.input(), 0);
            if (limitOut && charge.output() > 0) output.charge(at, charge.output(), 0);
            leases.put(call.leaseId(), nowMs + limits.leaseMs());
        }
        return new BudgetDecision(refusal == null, refusal, wait, snapshot(limits, nowMs));
    }

    /**
     * A replica's slice of this budget, in one step ({@link SliceAsk}): its queued settlements
     * applied, its previous slice's unspent rest given back, the slots its calls use kept (even
     * above a lowered limit: those calls are running), and then, unless paused or refused, a new
     * slice charged like one call's admission (at now plus the count delay) and spare slots.
     * Where room is scarce (less than twice the wanted amount) only the need is granted, so
     * slices shrink to single calls as the budget fills and no replica sits on room another needs.
     */
    public SliceGrant lease(BudgetLimits limits, SliceAsk ask, long nowMs) {
        advance(limits, nowMs);
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        for (BudgetSettlement s : ask.settlements()) apply(s, nowMs);
        Amounts back = ask.giveBack();
        if (!back.isZero()) adjust(nowMs, ask.giveBackAtMs(), back.negated());

        // Slots: the ones in use stay held and are renewed; spares are given back, then taken again if they fit.
        int keep = Math.min(ask.slotsHeld(), ask.slotsInUse());
        for (int i = keep + 1; i <= ask.slotsHeld(); i++) leases.remove(SliceAsk.slotId(ask.replica(), i));
        if (ask.renewSlots())
            for (int i = 1; i <= keep; i++) leases.put(SliceAsk.slotId(ask.replica(), i), nowMs + ask.slotTtlMs());
        long slotRoom = Math.max(0, (long) limits.maxInFlight() - leases.size());

        Amounts need = ask.need();
        Refusal r = refusal(limits, need, ask.needSlot(), slotRoom, !need.isZero() || ask.needSlot(), nowMs);
        BudgetRefusal refusal = r.refusal;
        long wait = r.wait;
        long capT = SlidingWindow.cap(limits.tokensPerMinute());
        long capR = SlidingWindow.cap(limits.requestsPerMinute());
        long capI = SlidingWindow.cap(limits.inputTokensPerMinute());
        long capO = SlidingWindow.cap(limits.outputTokensPerMinute());
        long chargedAt = nowMs + limits.countDelayMs();
        Amounts granted = Amounts.ZERO;
        int held = keep;
        if (refusal == null && pausedUntilMs <= nowMs) {
            Amounts want = ask.want();
            granted = new Amounts(
                    grant(need.requests(), want.requests(), capR - window.usedRequests()),
                    grant(need.tokens(), want.tokens(), capT - window.usedTokens()),
                    limitIn ? grant(need.input(), want.input(), capI - input.usedTokens()) : 0,
                    limitOut ? grant(need.output(), want.output(), capO - output.usedTokens()) : 0);
            if (granted.tokens() > 0 || granted.requests() > 0)
                window.charge(chargedAt, granted.tokens(), granted.requests());
            if (granted.input() > 0) input.charge(chargedAt, granted.input(), 0);
            if (granted.output() > 0) output.charge(chargedAt, granted.output(), 0);
            long spare = grant(ask.needSlot() ? 1 : 0, Math.max(0, ask.wantSlots() - keep), slotRoom);
            for (int i = 1; i <= spare; i++)
                leases.put(SliceAsk.slotId(ask.replica(), keep + i), nowMs + ask.slotTtlMs());
            held = keep + (int) spare;
        }
        return new SliceGrant(refusal == null, refusal, wait, granted, chargedAt, held, snapshot(limits, nowMs));
    }

    /**
     * How much of {@code want} to grant with {@code room} left: all of it while room is
     * plentiful, only {@code need} once room is under twice the want (the caller checked that
     * the need fits), never more than the room.
     */
    static long grant(long need, long want, long room) {
        if (room <= 0) return Math.min(need, Math.max(0, room));
        long w = Math.max(need, want);
        if (room / 2 < w) return Math.min(need, room);
        return w;
    }

    /** Applies one queued settlement, as {@link #settle} or {@link #adjust} would have. */
    private void apply(BudgetSettlement s, long nowMs) {
        if (s.moves()) {
            settle(nowMs, s.chargedAtMs(), s.countedByMs(), s.chargedTokens(), s.deltaTokens());
        } else {
            adjust(nowMs, s.chargedAtMs(), s.delta());
        }
    }

    /**
     * What keeps {@code need} (and a slot, when {@code needSlot}) from being taken now, the
     * constraint that frees last; nothing when it fits. A need larger than a whole cap never fits
     * (wait -1). Each constraint frees at its own time; the need fits when the last of them has.
     */
    private Refusal refusal(
            BudgetLimits limits, Amounts need, boolean needSlot, long slotRoom, boolean pauseBlocks, long nowMs) {
        boolean limitIn = limits.inputTokensPerMinute() > 0;
        boolean limitOut = limits.outputTokensPerMinute() > 0;
        long capT = SlidingWindow.cap(limits.tokensPerMinute());
        long capR = SlidingWindow.cap(limits.requestsPerMinute());
        long capI = SlidingWindow.cap(limits.inputTokensPerMinute());
        long capO = SlidingWindow.cap(limits.outputTokensPerMinute());
        Refusal r = new Refusal();
        if (need.tokens() > capT) {
            r.block(BudgetRefusal.TOKENS, -1);
        } else if (limitIn && need.input() > capI) {
            r.block(BudgetRefusal.INPUT_TOKENS, -1);
        } else if (limitOut && need.output() > capO) {
            r.block(BudgetRefusal.OUTPUT_TOKENS, -1);
        } else {
            if (pausedUntilMs > nowMs && pauseBlocks) r.block(BudgetRefusal.PAUSED, pausedUntilMs - nowMs);
            if (need.tokens() > capT - window.usedTokens()) {
                r.block(BudgetRefusal.TOKENS, window.waitMs(nowMs, need.tokens(), 0, capT, Long.MAX_VALUE));
            }
            if (need.requests() > capR - window.usedRequests()) {
                r.block(BudgetRefusal.REQUESTS, window.waitMs(nowMs, 0, need.requests(), Long.MAX_VALUE, capR));
            }
            if (needSlot && slotRoom < 1) r.block(BudgetRefusal.IN_FLIGHT, limits.inFlightHintMs());
            if (limitIn && need.input() > capI - input.usedTokens()) {
                r.block(BudgetRefusal.INPUT_TOKENS, input.waitMs(nowMs, need.input(), 0, capI, Long.MAX_VALUE));
            }
            if (limitOut && need.output() > capO - output.usedTokens()) {
                r.block(BudgetRefusal.OUTPUT_TOKENS, output.waitMs(nowMs, need.output(), 0, capO, Long.MAX_VALUE));
            }
        }
        return r;
    }

    /** The constraint that frees last among those that block, as {@link #tryAcquire} picks it. */
    private static final class Refusal {
        BudgetRefusal refusal;
        long wait;

        void block(BudgetRefusal r, long w) {
            if (refusal == null || w > wait) {
                refusal = r;
                wait = w;
            }
        }
    }

    /** Frees the slot; true if {@code leaseId} held one that had not expired. Idempotent. */
    public boolean release(String leaseId, long nowMs) {
        Long expiresAt = leases.remove(leaseId);
        return expiresAt != null && expiresAt > nowMs;
    }

    /**
     * Corrects the charge made at {@code chargedAtMs} by signed deltas, if it is still in the
     * window: the input and output windows by the answer's prompt_tokens and completion_tokens
     * against what was charged. A window is touched only for a delta that is not zero: a budget
     * without the split is never given one.
     */
    public void adjust(long nowMs, long chargedAtMs, AmountsDelta delta) {
        if (delta.tokens() != 0 || delta.requests() != 0) {
            window.advance(nowMs);
            window.adjust(chargedAtMs, delta.tokens(), delta.requests());
        }
        if (delta.input() != 0) {
            input.advance(nowMs);
            input.adjust(chargedAtMs, delta.input(), 0);
        }
        if (delta.output() != 0) {
            output.advance(nowMs);
            output.adjust(chargedAtMs, delta.output(), 0);
        }
    }

    /**
     * Settles a call that ended: its charge of {@code chargedTokens} made at {@code chargedAtMs}
     * becomes what the provider reported ({@code deltaTokens} more), and when the answer proves
     * the provider counted the call in a later slot than the charge's ({@code countedByMs}: the
     * answer's arrival less the provider's own processing time), the charge moves there. A
     * request can reach the provider long after it was charged (a stalled event loop, a slow
     * network); moved, its charge leaves this window no sooner than the provider's count leaves
     * the provider's. Moving only ever holds tokens longer, so it is always safe.
     */
    public void settle(long nowMs, long chargedAtMs, long countedByMs, long chargedTokens, long deltaTokens) {
        window.advance(nowMs);
        long counted = Math.min(countedByMs, nowMs); // a proof from a clock ahead moves the charge no further than now
        if (!movesLater(chargedAtMs, counted)) {
            window.adjust(chargedAtMs, deltaTokens, 0);
            return;
        }
        long charged = Math.min(Math.max(0, chargedTokens), SlidingWindow.MAX_AMOUNT);
        window.adjust(chargedAtMs, -charged, -1);
        window.adjust(counted, SlidingWindow.saturated(charged, deltaTokens), 1);
    }

    /** Whether a proof that the provider counted the call by {@code countedByMs} moves its charge to a later slot. */
    public static boolean movesLater(long chargedAtMs, long countedByMs) {
        return Math.floorDiv(countedByMs, SLOT_MS) > Math.floorDiv(chargedAtMs, SLOT_MS);
    }

    /**
     * How old the upstream's word on its room may be against this window ({@link #correct}): its
     * answer's way back, and how much later than charged here it counts a call. Two slots: against
     * a provider 100 ms away each way and up to 800 ms more (the retrying judged crowd in simulated
     * time, 10 seeds), all 710 words that said less room than the window showed were explained by
     * usage that had left it less than a second before.
     */
    static final long WORD_AGE_MS = 2 * SLOT_MS;

    /**
     * The longest pause one push-back sets: an upstream's retry-after is its word, not a
     * number to add to a clock unchecked. An hour: longer than anyone waits in line (X-Sluice-Max-Wait is at most 10 min).
     */
    public static final long MAX_PAUSE_MS = 3_600_000;

    /** Holds every admission off for {@code pauseMs} from now (a longer pause already set stays); returns the pause's end. */
    public long pause(long nowMs, long pauseMs) {
        pausedUntilMs = Math.max(pausedUntilMs, nowMs + Math.min(MAX_PAUSE_MS, Math.max(0, pauseMs)));
        return pausedUntilMs > nowMs ? pausedUntilMs : 0;
    }

    /**
     * Takes the upstream's word for how much room is left ({@code x-ratelimit-remaining-*}; a
     * negative value means not reported). When the window shows more room than the upstream
     * says, the difference is charged as phantom usage in the slot that leaves the window when
     * the upstream says its usage resets (or, if the reset is further than a window away, in
     * the current slot). So the local view never shows more room than the provider, and the
     * correction lifts by itself when the provider's does.
     *
     * <p>The upstream's latest word replaces its last: the phantom the previous correction charged
     * in a dimension reported now is taken back before the excess is measured again. And the word
     * is as old as its answer's way back: usage that left this window within {@link #WORD_AGE_MS}
     * may still be in the count it reports, and is not excess. A provider that counts a call a
     * moment later than it was charged here still holds it for that moment after it left this
     * window; told so as a burst's answers came back, a phantom held to the reset (the provider's
     * newest usage leaving, a minute away) kept that room idle for the minute, and calls promised a
     * start in it were dropped at their deadline.
     */
    public void correct(BudgetLimits limits, long nowMs, long remainingRequests, long remainingTokens, long resetMs) {
        window.advance(nowMs);
        if (remainingTokens >= 0) takeBack(phantomTokens, true);
        if (remainingRequests >= 0) takeBack(phantomRequests, false);
        SlidingWindow.Usage stale = window.leftSince(nowMs - WORD_AGE_MS);
        long extraTokens = Math.max(
                0,
                excess(SlidingWindow.cap(limits.tokensPerMinute()) - window.usedTokens(), remainingTokens)
                        - stale.tokens());
        long extraRequests = Math.max(
                0,
                excess(SlidingWindow.cap(limits.requestsPerMinute()) - window.usedRequests(), remainingRequests)
                        - stale.requests());
        if (extraTokens == 0 && extraRequests == 0) return;
        long slot = correctionSlot(nowMs, resetMs);
        window.adjust(slot * SLOT_MS, extraTokens, extraRequests);
        if (extraTokens > 0) phantomTokens.set(slot, extraTokens);
        if (extraRequests > 0) phantomRequests.set(slot, extraRequests);
    }

    /** The phantom's amount leaves its slot, if that slot is still in the window. */
    private void takeBack(Phantom p, boolean tokens) {
        if (p.slot == Long.MIN_VALUE) return;
        window.adjust(p.slot * SLOT_MS, tokens ? -p.amount : 0, tokens ? 0 : -p.amount);
        p.set(Long.MIN_VALUE, 0);
    }

    /**
     * Whether {@link #correct} could charge anything: not when the upstream reports at least the
     * whole cap in every dimension it reports, since the local room is never more than the cap.
     * The dispatcher skips the store call then (with a provider far from its limits, every call).
     */
    public static boolean correctionMayCharge(BudgetLimits limits, long remainingRequests, long remainingTokens) {
        return (remainingRequests >= 0 && remainingRequests < limits.requestsPerMinute())
                || (remainingTokens >= 0 && remainingTokens < limits.tokensPerMinute());
    }

    private static long excess(long localRoom, long upstreamRemaining) {
        return upstreamRemaining >= 0 && localRoom > upstreamRemaining ? localRoom - upstreamRemaining : 0;
    }

    /** The slot whose charge leaves the window at or just after {@code now + resetMs}, within the window. */
    static long correctionSlot(long nowMs, long resetMs) {
        long current = Math.floorDiv(nowMs, SLOT_MS);
        // Any reset past two windows lands in the current slot anyway: bounded, it cannot overflow the clock.
        long reset = Math.min(Math.max(0, resetMs), 2 * WINDOW_MS);
        long slot = Math.floorDiv(nowMs + reset + SLOT_MS - 1, SLOT_MS) - HELD;
        return Math.min(current, Math.max(current - SlidingWindow.SLOTS, slot));
    }

    public BudgetSnapshot snapshot(BudgetLimits limits, long nowMs) {
        window.advance(nowMs);
        sweep(nowMs);
        List<BudgetSnapshot.Leaving> leaving = new ArrayList<>();
        window.forEachSlot((at, tokens, requests) -> leaving.add(new BudgetSnapshot.Leaving(at, tokens, requests)));
        return BudgetSnapshot.empty(limits, nowMs)
                .withUsed(window.usedRequests(), window.usedTokens())
                .withSplitUsed(
                        used(input, limits.inputTokensPerMinute(), nowMs),
                        used(output, limits.outputTokensPerMinute(), nowMs))
                .withInFlight(leases.size())
                .withPausedUntil(pausedUntilMs > nowMs ? pausedUntilMs : 0)
                .withResetMs(window.resetMs(nowMs))
                .withLeaving(leaving);
    }

    /** A split window's tokens now, 0 when the limits do not have it (it is not read then). */
    private static long used(SlidingWindow w, long limit, long nowMs) {
        if (limit == 0) return 0;
        w.advance(nowMs);
        return w.usedTokens();
    }

    /** True when nothing is charged, held or paused, nor left the window lately ({@link #correct}): the state can be dropped. */
    public boolean isIdle(long nowMs) {
        window.advance(nowMs);
        sweep(nowMs);
        input.advance(nowMs);
        output.advance(nowMs);
        return leases.isEmpty()
                && pausedUntilMs <= nowMs
                && window.usedTokens() == 0
                && window.usedRequests() == 0
                && input.usedTokens() == 0
                && output.usedTokens() == 0
                && window.leftSince(nowMs - WORD_AGE_MS).equals(SlidingWindow.Usage.NONE); // a word may still count it
    }

    /** The window, the leases and the input and output windows the limits have, brought to {@code nowMs}. */
    private void advance(BudgetLimits limits, long nowMs) {
        window.advance(nowMs);
        sweep(nowMs);
        if (limits.inputTokensPerMinute() > 0) input.advance(nowMs);
        if (limits.outputTokensPerMinute() > 0) output.advance(nowMs);
    }

    private void sweep(long nowMs) {
        leases.values().removeIf(expiresAt -> expiresAt <= nowMs);
    }
}
