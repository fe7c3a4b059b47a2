package dev.sluice.gateway.quota;

import java.util.Arrays;

/**
 * One sliding window of usage in slots of {@code length / SLOTS} (1 s for a minute): bounded
 * memory whatever the request rate. A check sums every slot that overlaps the last
 * {@code length}, that is {@code SLOTS + 1} slots, so a charge counts for between one window
 * and one window plus a slot: never more than the cap is admitted in any exact window (no
 * overshoot at all), at the price of answering "fits" up to one slot later than an exact log.
 *
 * <p>Slot {@code i} covers {@code [i·slotMs, (i+1)·slotMs)} and leaves the window at
 * {@code (i + SLOTS + 1)·slotMs}. A charge may be stamped up to one slot ahead of now (the
 * provider budget stamps its charges at the moment the provider can count them, see
 * {@code ProviderBudget}): it counts from now and leaves one slot later; the quota never does. The Lua library {@code window_lib.lua}, which the quota and
 * the provider budget scripts include, is this class in Redis. Not thread-safe: the store
 * serialises access per tenant.
 */
public final class SlidingWindow {
    public static final int SLOTS = 60;
    /** Slots held: the window's SLOTS plus the one the window's start falls in. */
    private static final int HELD = SLOTS + 1;
    /** Slots kept: those held plus one a charge stamped ahead of now may take. */
    private static final int RING = HELD + 1;
    /**
     * The most one slot holds and the highest cap that means anything: caps above it count as
     * it, and every slot saturates at it. All {@link #RING} slots at it still sum below 2^53, so
     * the Lua twins, whose numbers are doubles, count exactly what this class counts, and no
     * sum here comes near a long's overflow (about 147 trillion tokens: no real limit is near).
     */
    public static final long MAX_AMOUNT = ((1L << 53) - 1) / RING;

    private final long slotMs;
    private final long[] tokens = new long[RING];
    private final long[] requests = new long[RING];
    private long head = Long.MIN_VALUE; // oldest slot index that may still hold usage
    private long newest = Long.MIN_VALUE; // newest slot index that holds usage
    private long totalTokens;
    private long totalRequests;
    /**
     * What left lately ({@link #leftSince}); null in a window nobody asks. A tenant's three quota windows
     * hold 3,635-3,652 B of heap without it (the quota cost benchmark); with it in every window, 3,975.
     */
    private final Departed departed;

    /** The two newest slots that left the window holding usage, newest first. */
    private static final class Departed {
        final long[] slot = {Long.MIN_VALUE, Long.MIN_VALUE};
        final long[] tokens = new long[2];
        final long[] requests = new long[2];
    }

    public SlidingWindow(long lengthMs) {
        this(lengthMs, false);
    }

    /** A window that remembers what left it lately when {@code remembersDeparted} ({@link #leftSince}). */
    public SlidingWindow(long lengthMs, boolean remembersDeparted) {
        if (lengthMs < SLOTS || lengthMs % SLOTS != 0) {
            throw new IllegalArgumentException("window length must be a positive multiple of " + SLOTS + " ms");
        }
        this.slotMs = lengthMs / SLOTS;
        this.departed = remembersDeparted ? new Departed() : null;
    }

    public static long slotMs(long lengthMs) {
        return lengthMs / SLOTS;
    }

    public long lengthMs() {
        return slotMs * SLOTS;
    }

    /** Drops the slots that have left the window at {@code nowMs}. */
    public void advance(long nowMs) {
        long oldest = Math.floorDiv(nowMs, slotMs) - SLOTS;
        if (head == Long.MIN_VALUE || oldest - head >= RING || newest < oldest) {
            // Nothing charged since the last clear (newest unset): the slots are zero already. An idle
            // tenant's window is advanced on every request; it need not be wiped each time.
            if (newest != Long.MIN_VALUE) {
                for (long i = Math.max(head, newest - 1); i <= newest; i++) left(i);
                clear();
            }
        } else {
            for (long i = head; i < oldest; i++) {
                left(i);
                int k = index(i);
                totalTokens -= tokens[k];
                totalRequests -= requests[k];
                tokens[k] = 0;
                requests[k] = 0;
            }
        }
        if (head == Long.MIN_VALUE || oldest > head) head = oldest;
    }

    /** Slot {@code i} is leaving the window (called oldest first): remembered if it holds usage and anyone asks. */
    private void left(long i) {
        Departed d = departed;
        if (d == null) return;
        int k = index(i);
        if ((tokens[k] == 0 && requests[k] == 0) || i <= d.slot[0]) return;
        d.slot[1] = d.slot[0];
        d.tokens[1] = d.tokens[0];
        d.requests[1] = d.requests[0];
        d.slot[0] = i;
        d.tokens[0] = tokens[k];
        d.requests[0] = requests[k];
    }

    /** Tokens and requests. */
    public record Usage(long tokens, long requests) {
        public static final Usage NONE = new Usage(0, 0);
    }

    /**
     * The usage that left the window after {@code fromMs} (up to the last {@link #advance}): of the
     * two newest slots that left holding usage, those that left then.
     * Enough for a span of up to two slots. Someone else's count of the same calls (a provider
     * counting them a moment later, its word on it a moment old) may still hold it. Only a window
     * made to remember it keeps it (the provider budget's; in Redis {@code window_lib.lua}'s
     * {@code advance} with {@code track}).
     */
    public Usage leftSince(long fromMs) {
        Departed d = departed;
        if (d == null) throw new IllegalStateException("this window does not remember what left it");
        long tokensLeft = 0;
        long requestsLeft = 0;
        for (int j = 0; j < 2; j++) {
            if (d.slot[j] == Long.MIN_VALUE || (d.slot[j] + HELD) * slotMs <= fromMs) continue;
            tokensLeft += d.tokens[j];
            requestsLeft += d.requests[j];
        }
        return new Usage(tokensLeft, requestsLeft);
    }

    private void clear() {
        Arrays.fill(tokens, 0);
        Arrays.fill(requests, 0);
        totalTokens = 0;
        totalRequests = 0;
        newest = Long.MIN_VALUE;
    }

    public long usedTokens() {
        return totalTokens;
    }

    public long usedRequests() {
        return totalRequests;
    }

    /**
     * Whether the addition fits under the caps. Compared as room left, never as a sum, so no
     * addition can wrap around: a hostile {@code max_tokens} of 2^63-1 simply does not fit.
     */
    public boolean fits(long addTokens, long addRequests, long capTokens, long capRequests) {
        requireAmounts(addTokens, addRequests);
        return addTokens <= room(capTokens, totalTokens) && addRequests <= room(capRequests, totalRequests);
    }

    /** A cap as this window counts it: at most {@link #MAX_AMOUNT}. */
    public static long cap(long cap) {
        return Math.min(cap, MAX_AMOUNT);
    }

    /** What is left under {@code cap} when {@code used} is taken; never negative. */
    static long room(long cap, long used) {
        return Math.max(0, cap(cap) - used);
    }

    /** Charges are amounts, never refunds in disguise: negative ones are a caller's bug. */
    public static void requireAmounts(long tokens, long requests) {
        if (tokens < 0 || requests < 0) {
            throw new IllegalArgumentException(
                    "amounts must not be negative: tokens=" + tokens + " requests=" + requests);
        }
    }

    /**
     * Charges the slot of {@code atMs}: now, or at most one slot ahead of the time last passed to
     * {@link #advance}. Call {@link #advance} and {@link #fits} first: what fits is at most a cap,
     * so the slot and the totals stay within {@link #MAX_AMOUNT}.
     */
    public void charge(long atMs, long addTokens, long addRequests) {
        requireAmounts(addTokens, addRequests);
        long slot = Math.floorDiv(atMs, slotMs);
        if (head != Long.MIN_VALUE && (slot < head || slot > head + HELD)) {
            throw new IllegalArgumentException("a charge is stamped within one slot of now");
        }
        int k = index(slot);
        tokens[k] += addTokens;
        requests[k] += addRequests;
        totalTokens += addTokens;
        totalRequests += addRequests;
        if (addTokens > 0 || addRequests > 0) newest = Math.max(newest, slot);
    }

    /**
     * Corrects the charge made at {@code chargedAtMs} by a signed delta, if that slot is still
     * in the window (a charge that has left the window no longer limits anything). A slot
     * saturates: never below zero, never above {@link #MAX_AMOUNT}, whatever the delta (the sum
     * is never formed, so a delta of ±2^63 cannot wrap and erase the slot). Call {@link #advance} first.
     */
    public void adjust(long chargedAtMs, long deltaTokens, long deltaRequests) {
        long slot = Math.floorDiv(chargedAtMs, slotMs);
        if (head == Long.MIN_VALUE || slot < head || slot > head + HELD) return;
        int k = index(slot);
        long t = saturated(tokens[k], deltaTokens);
        long r = saturated(requests[k], deltaRequests);
        totalTokens += t - tokens[k];
        totalRequests += r - requests[k];
        tokens[k] = t;
        requests[k] = r;
        if (t > 0 || r > 0) newest = Math.max(newest, slot);
    }

    /** {@code value + delta} within [0, MAX_AMOUNT], for {@code value} in that range, without forming an overflowing sum. */
    public static long saturated(long value, long delta) {
        if (delta >= MAX_AMOUNT - value) return MAX_AMOUNT;
        if (delta <= -value) return 0;
        return value + delta;
    }

    /**
     * Milliseconds from {@code nowMs} until enough old slots have left for the addition to fit;
     * 0 if it fits now; -1 if it never can (larger than the cap).
     */
    public long waitMs(long nowMs, long addTokens, long addRequests, long capTokens, long capRequests) {
        requireAmounts(addTokens, addRequests);
        if (addTokens > cap(capTokens) || addRequests > cap(capRequests)) return -1;
        long t = totalTokens;
        long r = totalRequests;
        if (addTokens <= room(capTokens, t) && addRequests <= room(capRequests, r)) return 0;
        for (long i = head; i <= head + HELD; i++) {
            int k = index(i);
            t -= tokens[k];
            r -= requests[k];
            if (addTokens <= room(capTokens, t) && addRequests <= room(capRequests, r)) {
                return Math.max(1, (i + HELD) * slotMs - nowMs);
            }
        }
        return lengthMs(); // unreachable: an empty window fits anything within the cap
    }

    /** One slot's usage and the time it leaves the window, for {@link #forEachSlot}. */
    @FunctionalInterface
    public interface SlotVisitor {
        void visit(long leavesAtMs, long tokens, long requests);
    }

    /** Visits every slot that holds usage, oldest first, with the time it leaves the window. Call {@link #advance} first. */
    public void forEachSlot(SlotVisitor visitor) {
        if (head == Long.MIN_VALUE) return;
        for (long i = head; i <= head + HELD; i++) {
            int k = index(i);
            if (tokens[k] > 0 || requests[k] > 0) visitor.visit((i + HELD) * slotMs, tokens[k], requests[k]);
        }
    }

    /** Milliseconds until everything now in the window has left it. */
    public long resetMs(long nowMs) {
        if (totalTokens == 0 && totalRequests == 0 || newest == Long.MIN_VALUE) return 0;
        return Math.max(0, (newest + HELD) * slotMs - nowMs);
    }

    private static int index(long slot) {
        return (int) Math.floorMod(slot, (long) RING);
    }
}
