package dev.sluice.gateway.quota;

import java.util.List;

/**
 * The answer of one atomic admission.
 *
 * @param admitted     whether the tokens and the request were charged
 * @param nowMs        the clock reading the decision was taken at (Redis TIME, or the local clock);
 *                     also the key to reconcile the charge later
 * @param retryAfterMs when refused: the earliest moment, from now, at which this request fits
 *                     in every window (0 when admitted)
 * @param blocking     when refused: the window that is the last to make room (else null)
 * @param windows      every window's state after the decision, minute window first
 */
public record QuotaDecision(
        boolean admitted, long nowMs, long retryAfterMs, String blocking, List<WindowUsage> windows) {
    public QuotaDecision {
        windows = List.copyOf(windows);
    }

    /** The window closest to its cap after this decision: the one that drives the ladder and the headers. */
    public WindowUsage tightest() {
        WindowUsage t = windows.get(0);
        for (WindowUsage w : windows) if (w.utilisation() > t.utilisation()) t = w;
        return t;
    }
}
