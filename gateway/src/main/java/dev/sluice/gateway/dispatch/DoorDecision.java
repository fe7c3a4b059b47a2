package dev.sluice.gateway.dispatch;

/**
 * The door's answer for a new job.
 *
 * @param position        its predicted 1-based place in service order
 * @param estimatedWaitMs predicted time until it is sent
 * @param retryAfterMs    when not accepted: when asking again should get in (no new arrivals
 *                        assumed); -1 for {@link Verdict#TOO_LARGE}; 0 when accepted
 */
public record DoorDecision(Verdict verdict, int position, long estimatedWaitMs, long retryAfterMs) {

    public enum Verdict {
        /** Queue it. */
        ACCEPT,
        /** The wait is past what the caller accepts: 503 gateway_busy. */
        BUSY,
        /** The queue holds its maximum: 503 gateway_busy. */
        QUEUE_FULL,
        /** More tokens than the budget admits in a whole minute: no wait would help. */
        TOO_LARGE
    }

    public boolean accepted() {
        return verdict == Verdict.ACCEPT;
    }
}
