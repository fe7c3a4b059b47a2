package dev.sluice.gateway.dispatch.queue;

import dev.sluice.gateway.dispatch.budget.Amounts;
import java.util.Objects;

/**
 * One queued upstream call, as the fair queue sees it. The caller keeps whatever it needs to
 * resume the request under {@code id}.
 *
 * @param priority     the tenant's tier priority, 1 first; its share weight is 1 / priority
 * @param tokens       the estimate charged to the provider budget (prompt + reserved output)
 * @param deadlineMs   when the caller stops waiting ({@code X-Sluice-Max-Wait}); Long.MAX_VALUE for never
 * @param attempts     upstream 429s this call has already had (kept across requeues)
 * @param inputTokens  the calibrated prompt charged to the budget's input window; 0 where it has none
 * @param outputTokens the output reserved (max_tokens) in the budget's output window; 0 where it has none
 */
public record Job(
        String id,
        String tenant,
        int priority,
        JobClass jobClass,
        long tokens,
        long enqueuedAtMs,
        long deadlineMs,
        int attempts,
        long inputTokens,
        long outputTokens) {

    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(jobClass, "jobClass");
        if (priority < 1) throw new IllegalArgumentException("priority must be at least 1, was " + priority);
        if (tokens < 0) throw new IllegalArgumentException("tokens must not be negative, was " + tokens);
        if (attempts < 0) throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException(
                    "input and output tokens must not be negative, were " + inputTokens + ", " + outputTokens);
        }
    }

    /** A job for a budget without input and output windows, not yet tried. */
    public static Job of(
            String id,
            String tenant,
            int priority,
            JobClass jobClass,
            long tokens,
            long enqueuedAtMs,
            long deadlineMs) {
        return new Job(id, tenant, priority, jobClass, tokens, enqueuedAtMs, deadlineMs, 0, 0, 0);
    }

    /** The same job charging the budget's input and output windows too. */
    public Job withSplit(long input, long output) {
        return with(deadlineMs, attempts, input, output);
    }

    /** The same job after one more upstream 429. */
    public Job nextAttempt() {
        return with(deadlineMs, attempts + 1, inputTokens, outputTokens);
    }

    /**
     * The same job waiting from {@code nowMs} for at most {@code maxWaitMs}: its arrival and its
     * deadline move together, so {@code deadlineMs - enqueuedAtMs} stays the caller's max wait
     * (what a busy answer's Retry-After is computed from). Never moves either earlier.
     */
    public Job waitingFrom(long nowMs, long maxWaitMs) {
        if (nowMs <= enqueuedAtMs || maxWaitMs >= Long.MAX_VALUE - nowMs) return this;
        return new Job(
                id, tenant, priority, jobClass, tokens, nowMs, nowMs + maxWaitMs, attempts, inputTokens, outputTokens);
    }

    /** The same call (who asks, what it costs, when it came) with what a copy may change. */
    private Job with(long deadlineMs, int attempts, long inputTokens, long outputTokens) {
        return new Job(
                id, tenant, priority, jobClass, tokens, enqueuedAtMs, deadlineMs, attempts, inputTokens, outputTokens);
    }

    /** The caller's max wait: from its arrival to its deadline ({@link #waitingFrom} keeps it). */
    public long maxWaitMs() {
        return deadlineMs - enqueuedAtMs;
    }

    /** What it charges the provider budget: one request, its tokens, its input and output. */
    public Amounts charge() {
        return Amounts.call(tokens, inputTokens, outputTokens);
    }

    /** The share weight of its tier: priority 1 → 1, 2 → 1/2, 3 → 1/3. */
    public double weight() {
        return 1.0 / priority;
    }
}
