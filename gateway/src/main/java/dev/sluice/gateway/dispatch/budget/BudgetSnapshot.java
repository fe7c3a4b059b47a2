package dev.sluice.gateway.dispatch.budget;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A provider budget's state at {@code nowMs} (the store's clock: Redis TIME or the local one).
 *
 * @param usedRequests  requests in the rolling minute
 * @param usedTokens    tokens in the rolling minute (estimates, as reconciled so far)
 * @param inFlight      leases held and not expired
 * @param pausedUntilMs end of an upstream-requested pause, 0 when not paused
 * @param resetMs       time from now until everything in the window has left it
 * @param leaving       when what is in the window leaves it, oldest first: one entry per
 *                      one-second slot holding usage (its tokens and requests sum to the used
 *                      ones). A window filled by a burst frees nothing for a whole minute, then
 *                      everything at once; the door needs to know which (see {@code Door}).
 *                      Null when the store did not read it (an acquire with room to spare and
 *                      nobody waiting: {@link ProviderBudgetStore#tryAcquire}); the door then
 *                      assumes the window frees evenly.
 * @param usedInputTokens  prompt tokens in the input window; 0 when the limits have none
 * @param usedOutputTokens output tokens (reserved, as settled so far) in the output window; 0 when the limits have none
 */
public record BudgetSnapshot(
        BudgetLimits limits,
        long nowMs,
        long usedRequests,
        long usedTokens,
        int inFlight,
        long pausedUntilMs,
        long resetMs,
        List<Leaving> leaving,
        long usedInputTokens,
        long usedOutputTokens) {

    /** Usage charged in one slot, which leaves the window at {@code atMs} (store time). */
    public record Leaving(long atMs, long tokens, long requests) {}

    public BudgetSnapshot {
        leaving = leaving == null ? null : List.copyOf(leaving);
    }

    /**
     * A budget with nothing used, held or paused at {@code nowMs}; the {@code with…} copies set
     * what is not. Its schedule is read and empty, not unknown.
     */
    public static BudgetSnapshot empty(BudgetLimits limits, long nowMs) {
        return new BudgetSnapshot(limits, nowMs, 0, 0, 0, 0, 0, List.of(), 0, 0);
    }

    /** The same budget with {@code requests} and {@code tokens} in its window. */
    public BudgetSnapshot withUsed(long requests, long tokens) {
        return with(c -> {
            c.usedRequests = requests;
            c.usedTokens = tokens;
        });
    }

    /** The same budget with {@code input} and {@code output} tokens in its input and output windows. */
    public BudgetSnapshot withSplitUsed(long input, long output) {
        return with(c -> {
            c.usedInputTokens = input;
            c.usedOutputTokens = output;
        });
    }

    /** The same budget paused until {@code untilMs} (0: not paused). */
    public BudgetSnapshot withPausedUntil(long untilMs) {
        return with(c -> c.pausedUntilMs = untilMs);
    }

    /** The same budget whose window empties {@code ms} from now. */
    public BudgetSnapshot withResetMs(long ms) {
        return with(c -> c.resetMs = ms);
    }

    /** The same budget with another leaving schedule (null: not read). */
    public BudgetSnapshot withLeaving(List<Leaving> schedule) {
        return with(c -> c.leaving = schedule);
    }

    /** The same budget with {@code calls} in flight. */
    public BudgetSnapshot withInFlight(int calls) {
        return with(c -> c.inFlight = calls);
    }

    /** The same budget with other limits (an adaptive in-flight cap), its usage unchanged. */
    public BudgetSnapshot withLimits(BudgetLimits other) {
        return with(c -> c.limits = other);
    }

    public long remainingTokens() {
        return Math.max(0, limits.tokensPerMinute() - usedTokens);
    }

    public long remainingRequests() {
        return Math.max(0, limits.requestsPerMinute() - usedRequests);
    }

    public long pausedForMs() {
        return Math.max(0, pausedUntilMs - nowMs);
    }

    public boolean paused() {
        return pausedUntilMs > nowMs;
    }

    /** Share of the token window used, for metrics. */
    public double tokenUtilisation() {
        return (double) usedTokens / limits.tokensPerMinute();
    }

    public double requestUtilisation() {
        return (double) usedRequests / limits.requestsPerMinute();
    }

    /** Share of the input window used; 0 when the limits have no input window. */
    public double inputUtilisation() {
        return limits.inputTokensPerMinute() == 0 ? 0 : (double) usedInputTokens / limits.inputTokensPerMinute();
    }

    /** Share of the output window used; 0 when the limits have no output window. */
    public double outputUtilisation() {
        return limits.outputTokensPerMinute() == 0 ? 0 : (double) usedOutputTokens / limits.outputTokensPerMinute();
    }

    /** The same budget paused at least {@code ms} from its {@code nowMs} (a 429 this replica just got). */
    public BudgetSnapshot pausedAtLeastFor(long ms) {
        long until = nowMs + Math.max(0, Math.min(ms, Long.MAX_VALUE - nowMs));
        return withPausedUntil(Math.max(pausedUntilMs, until));
    }

    /** The same budget with one call fewer in flight (this replica gave a slot back). */
    public BudgetSnapshot lessOneInFlight() {
        return withInFlight(Math.max(0, inFlight - 1));
    }

    /**
     * This snapshot {@code elapsedMs} later, assuming nothing new was charged meanwhile: what
     * has left the window by then no longer counts. So a snapshot taken while the window was
     * full does not keep saying "full" after it has emptied. The input and output windows have
     * no schedule of their own (reading them would cost every acquire): they are charged with the
     * total, so they count as they were until the total window has emptied (the safe side).
     */
    public BudgetSnapshot agedBy(long elapsedMs) {
        if (elapsedMs <= 0) return this;
        long now = nowMs + elapsedMs;
        Copy c = new Copy();
        c.nowMs = now;
        c.resetMs = Math.max(0, resetMs - elapsedMs);
        boolean gone;
        if (leaving == null) { // without the schedule, only the window's reset says when its content has left
            gone = elapsedMs >= resetMs;
            if (gone) {
                c.usedRequests = 0;
                c.usedTokens = 0;
                c.leaving = List.of();
            }
        } else {
            long tokens = usedTokens;
            long requests = usedRequests;
            List<Leaving> still = new ArrayList<>(leaving.size());
            for (Leaving l : leaving) {
                if (l.atMs() <= now) {
                    tokens -= l.tokens();
                    requests -= l.requests();
                } else {
                    still.add(l);
                }
            }
            gone = still.isEmpty();
            c.usedRequests = Math.max(0, requests);
            c.usedTokens = Math.max(0, tokens);
            c.leaving = still;
        }
        if (gone) {
            c.usedInputTokens = 0;
            c.usedOutputTokens = 0;
        }
        return c.build();
    }

    /** This snapshot with what {@code change} sets on a copy of its fields. */
    private BudgetSnapshot with(Consumer<Copy> change) {
        Copy c = new Copy();
        change.accept(c);
        return c.build();
    }

    /** This snapshot's fields, to change before {@link #build} makes a snapshot of them again. */
    private final class Copy {
        BudgetLimits limits = limits();
        long nowMs = nowMs();
        long usedRequests = usedRequests();
        long usedTokens = usedTokens();
        int inFlight = inFlight();
        long pausedUntilMs = pausedUntilMs();
        long resetMs = resetMs();
        List<Leaving> leaving = leaving();
        long usedInputTokens = usedInputTokens();
        long usedOutputTokens = usedOutputTokens();

        BudgetSnapshot build() {
            return new BudgetSnapshot(
                    limits,
                    nowMs,
                    usedRequests,
                    usedTokens,
                    inFlight,
                    pausedUntilMs,
                    resetMs,
                    leaving,
                    usedInputTokens,
                    usedOutputTokens);
        }
    }

    /**
     * When {@code calls} of the calls in flight that this replica does not hold end, in ms from now,
     * soonest first, as the window suggests: calls in flight are the latest sent, so the latest
     * {@code calls + ownCalls} requests charged are taken to be all of them, each sent in the middle of
     * the part of its one-second slot that has passed and ending {@code meanCallMs} later, and the
     * others' are spread evenly among them. A burst another replica sent a moment ago then frees its
     * slots together a call later, not one by one from now (its second door told a book "in 11 ms,
     * 114 ms, ..." for slots that freed 2 s later). Fewer when the window does not hold that many
     * requests, none without its schedule: the rest drain evenly ({@code SendTime#slots}).
     */
    public List<Long> callsEnding(int calls, int ownCalls, long meanCallMs) {
        if (calls <= 0 || leaving == null || leaving.isEmpty()) return List.of();
        int wanted = calls + Math.max(0, ownCalls);
        List<Long> latest = new ArrayList<>(Math.min(wanted, 1_024));
        for (int i = leaving.size() - 1; i >= 0 && latest.size() < wanted; i--) {
            Leaving slot = leaving.get(i);
            long start = slot.atMs() - WINDOW_AND_SLOT_MS;
            long sentAt = start + Math.max(0, Math.min(nowMs, start + SLOT_MS) - start) / 2;
            long endsIn = Math.max(0, sentAt + meanCallMs - nowMs);
            for (long r = 0; r < slot.requests() && latest.size() < wanted; r++) latest.add(endsIn);
        }
        latest.sort(null);
        int found = latest.size();
        int theirs = (int) Math.min(calls, (long) found * calls / wanted);
        List<Long> out = new ArrayList<>(theirs);
        for (int k = 0; k < theirs; k++) {
            long evenly = (long) Math.ceil((double) (k + 1) * meanCallMs / calls);
            out.add(Math.max(evenly, latest.get((int) ((long) k * found / theirs))));
        }
        return out;
    }

    /** The window's slot: a charge is dated to the second it was made in. */
    private static final long SLOT_MS = ProviderBudget.SLOT_MS;

    /** How long a charge stays in the window: the minute and the slot it was made in (a slot's charges leave together). */
    private static final long WINDOW_AND_SLOT_MS = ProviderBudget.WINDOW_MS + ProviderBudget.SLOT_MS;
}
