package dev.sluice.gateway.dispatch.queue;

import java.util.List;

/**
 * The door's answer for a new job.
 *
 * @param position        its predicted 1-based place in service order
 * @param estimatedWaitMs predicted time until it is sent
 * @param retryAfterMs    when not accepted: when asking again should get in (no new arrivals
 *                        assumed); -1 for {@link Verdict#TOO_LARGE}; 0 when accepted
 * @param displaced       accepted: queued jobs, admitted within {@link Door#softForMs}, that this
 *                        one's turn pushes past their deadline, each with its predicted wait
 *                        behind it; the caller answers them busy now, while that costs their
 *                        callers nothing
 * @param turnAtLeast     accepted behind promises its fair turn would have broken: the lowest
 *                        counter at which it may be served ({@link FairQueue#enqueue(Job, long)});
 *                        {@code Long.MIN_VALUE}: its fair turn
 */
public record DoorDecision(
        Verdict verdict,
        int position,
        long estimatedWaitMs,
        long retryAfterMs,
        List<Displaced> displaced,
        long turnAtLeast) {

    public DoorDecision {
        displaced = List.copyOf(displaced);
    }

    public DoorDecision(Verdict verdict, int position, long estimatedWaitMs, long retryAfterMs) {
        this(verdict, position, estimatedWaitMs, retryAfterMs, List.of(), Long.MIN_VALUE);
    }

    /** A queued job pushed past its deadline, and its predicted wait (from now) at its new place. */
    public record Displaced(Job job, long waitMs) {}

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
