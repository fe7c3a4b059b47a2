package dev.sluice.gateway.quota;

import java.util.List;

/**
 * The answer of one atomic admission.
 *
 * @param admitted     whether the tokens, the request and its cost were charged
 * @param nowMs        the clock reading the decision was taken at (Redis TIME, or the local clock);
 *                     also the key to reconcile the charge later
 * @param retryAfterMs when refused: the earliest moment, from now, at which this request fits
 *                     in every window and budget (0 when admitted; -1: never)
 * @param blocking     when refused: the window (or spend budget, {@code spend:...}) that is the last
 *                     to make room (else null)
 * @param windows      every window's state after the decision, minute window first
 * @param spends       every spend budget's state after the decision, the day's first (empty: none)
 */
public record QuotaDecision(
        boolean admitted,
        long nowMs,
        long retryAfterMs,
        String blocking,
        List<WindowUsage> windows,
        List<SpendUsage> spends) {
    public QuotaDecision {
        windows = List.copyOf(windows);
        spends = List.copyOf(spends);
    }

    /** A decision on token windows alone. */
    public QuotaDecision(boolean admitted, long nowMs, long retryAfterMs, String blocking, List<WindowUsage> windows) {
        this(admitted, nowMs, retryAfterMs, blocking, windows, List.of());
    }

    /** The window closest to its cap after this decision: the one that drives the ladder and the headers. */
    public WindowUsage tightest() {
        WindowUsage t = windows.get(0);
        for (WindowUsage w : windows) if (w.utilisation() > t.utilisation()) t = w;
        return t;
    }

    /** The highest share used of any window or spend budget: what the ladder's downgrade reads. */
    public double utilisation() {
        double u = tightest().utilisation();
        for (SpendUsage s : spends) u = Math.max(u, s.utilisation());
        return u;
    }

    /** The spend budget that refused this request, or null when none did. */
    public SpendUsage blockingSpend() {
        if (!SpendLimit.isSpend(blocking)) return null;
        for (SpendUsage s : spends) if (s.name().equals(blocking)) return s;
        return null;
    }
}
