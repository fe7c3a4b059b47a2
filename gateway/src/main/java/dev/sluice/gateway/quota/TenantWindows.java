package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.WindowLimit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pure quota core: all of a tenant's windows and spend budgets ({@link SpendCounters}),
 * checked and charged as one step. Time is an argument. Not thread-safe; the in-memory store locks per tenant, the Redis store runs
 * the same algorithm inside one Lua script.
 */
public final class TenantWindows {
    private final Map<String, SlidingWindow> windows = new HashMap<>();
    private final SpendCounters counters = new SpendCounters();

    private SlidingWindow window(WindowLimit limit) {
        long lengthMs = limit.seconds() * 1000;
        SlidingWindow w = windows.get(limit.name());
        if (w == null || w.lengthMs() != lengthMs) { // a tier edit changed the length: start afresh
            w = new SlidingWindow(lengthMs);
            windows.put(limit.name(), w);
        }
        return w;
    }

    /** Admits {@code tokens} and {@code requests} if they fit in every window, charging all of them; else charges none. */
    public QuotaDecision acquire(List<WindowLimit> limits, long nowMs, long tokens, long requests) {
        return acquire(limits, List.of(), nowMs, tokens, requests, 0);
    }

    /**
     * The same with the request's {@code costMicros} charged to each spend budget's counter for the
     * period now, in the same step: all of it, or nothing anywhere. A budget refuses until its
     * period turns, or for ever (-1) a cost above the whole budget.
     */
    public QuotaDecision acquire(
            List<WindowLimit> limits,
            List<SpendLimit> spends,
            long nowMs,
            long tokens,
            long requests,
            long costMicros) {
        SlidingWindow.requireAmounts(tokens, requests);
        if (costMicros < 0) throw new IllegalArgumentException("cost must not be negative: " + costMicros);
        counters.drop(nowMs);
        boolean fits = true;
        for (WindowLimit l : limits) {
            SlidingWindow w = window(l);
            w.advance(nowMs);
            fits &= w.fits(tokens, requests, l.tokens(), l.requests());
        }
        fits &= counters.fits(spends, costMicros);
        long retryAfter = 0;
        String blocking = null;
        if (fits) {
            for (WindowLimit l : limits) window(l).charge(nowMs, tokens, requests);
            if (tokens > 0 || requests > 0) counters.charge(spends, costMicros);
        } else {
            for (WindowLimit l : limits) {
                long wait = window(l).waitMs(nowMs, tokens, requests, l.tokens(), l.requests());
                if (wait < 0) {
                    retryAfter = -1;
                    blocking = l.name();
                    break;
                }
                if (wait > retryAfter) {
                    retryAfter = wait;
                    blocking = l.name();
                }
            }
            for (int i = 0; i < spends.size() && retryAfter >= 0; i++) {
                SpendLimit l = spends.get(i);
                long wait = counters.waitMs(l, nowMs, costMicros);
                if (wait < 0) {
                    retryAfter = -1;
                    blocking = l.name();
                } else if (wait > retryAfter) {
                    retryAfter = wait;
                    blocking = l.name();
                }
            }
        }
        return new QuotaDecision(fits, nowMs, retryAfter, blocking, usage(limits, nowMs), spendUsage(spends, nowMs));
    }

    /** Corrects an earlier charge (made at {@code chargedAtMs}) by signed deltas, in the windows it was made in. */
    public void adjust(List<WindowLimit> limits, long nowMs, long chargedAtMs, long deltaTokens, long deltaRequests) {
        adjust(limits, List.of(), nowMs, chargedAtMs, deltaTokens, deltaRequests, 0);
    }

    /** The same, and its cost by {@code deltaMicros} in the spend budgets' periods it was charged in. */
    public void adjust(
            List<WindowLimit> limits,
            List<SpendLimit> spends,
            long nowMs,
            long chargedAtMs,
            long deltaTokens,
            long deltaRequests,
            long deltaMicros) {
        for (WindowLimit l : limits) {
            SlidingWindow w = window(l);
            w.advance(nowMs);
            w.adjust(chargedAtMs, deltaTokens, deltaRequests);
        }
        counters.adjust(spends, nowMs, deltaMicros);
    }

    /** Each spend budget's counter for its period, charging nothing. */
    public List<SpendUsage> spendUsage(List<SpendLimit> spends, long nowMs) {
        counters.drop(nowMs);
        List<SpendUsage> out = new ArrayList<>(spends.size());
        for (SpendLimit l : spends) out.add(counters.usage(l, nowMs));
        return out;
    }

    public List<WindowUsage> usage(List<WindowLimit> limits, long nowMs) {
        List<WindowUsage> out = new ArrayList<>(limits.size());
        for (WindowLimit l : limits) {
            SlidingWindow w = window(l);
            w.advance(nowMs);
            out.add(new WindowUsage(
                    l.name(),
                    l.seconds(),
                    l.tokens(),
                    l.requests(),
                    w.usedTokens(),
                    w.usedRequests(),
                    w.resetMs(nowMs)));
        }
        return out;
    }

    /** True when nothing is left in any window: the state can be dropped. */
    public boolean isIdle(long nowMs) {
        for (SlidingWindow w : windows.values()) {
            w.advance(nowMs);
            if (w.usedTokens() > 0 || w.usedRequests() > 0) return false;
        }
        // A period's spend outlives the windows by hours: the tenant is kept while it holds any.
        return counters.isIdle(nowMs);
    }
}
