package dev.sluice.gateway.dispatch.queue;

/**
 * The work a queued (or would-be) job has ahead of it in service order, as the fair queue
 * predicts it from the jobs queued now (arrivals after it may still overtake a batch job).
 *
 * @param jobs   jobs served before it
 * @param tokens their estimated tokens
 */
public record WorkAhead(int jobs, long tokens) {
    public static final WorkAhead NONE = new WorkAhead(0, 0);

    /** This work and {@code moreJobs} calls of {@code moreTokens} more. */
    public WorkAhead plus(int moreJobs, long moreTokens) {
        return new WorkAhead(jobs + moreJobs, LaneShare.clamp(tokens + moreTokens));
    }

    /** 1 = next to go. */
    public int position() {
        return jobs + 1;
    }
}
