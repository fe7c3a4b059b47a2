package dev.sluice.gateway.dispatch.budget;

import dev.sluice.gateway.config.ModelLimits;
import dev.sluice.gateway.config.ProviderSettings;
import java.time.Duration;

/**
 * The limits one provider budget enforces, already reduced by the provider's headroom.
 * Passed with every call rather than stored, so a tiers.yaml edit or a lower adaptive
 * concurrency limit ({@link #withMaxInFlight}) applies on the next admission.
 *
 * @param requestsPerMinute requests admitted in any rolling 60 s
 * @param tokensPerMinute   tokens (estimate, later reconciled) admitted in any rolling 60 s;
 *                          Long.MAX_VALUE (no cap) when the provider meters only input and output apart
 * @param maxInFlight       calls holding a slot at once, across every replica
 * @param leaseMs           how long a slot stays held if nobody releases it (a replica died):
 *                          comfortably longer than the longest call, e.g. 2 × the call timeout
 * @param inputTokensPerMinute  prompt tokens (calibrated) in any rolling 60 s; 0 = not limited apart
 * @param outputTokensPerMinute output tokens (reserved from max_tokens, settled to what was written)
 *                              in any rolling 60 s; 0 = not limited apart
 * @param countDelayMs      how long after the admission the provider may count the call (the
 *                          request's way there, the provider's clock): a charge is stamped that
 *                          much later, so it leaves the window no sooner than it leaves the
 *                          provider's. At most one window slot ({@link #MAX_COUNT_DELAY_MS})
 */
public record BudgetLimits(
        long requestsPerMinute,
        long tokensPerMinute,
        int maxInFlight,
        long leaseMs,
        long inputTokensPerMinute,
        long outputTokensPerMinute,
        long countDelayMs) {
    /** One slot of the window: a charge is stamped at most one slot ahead of now. */
    public static final long MAX_COUNT_DELAY_MS = ProviderBudget.SLOT_MS;

    public BudgetLimits {
        if (requestsPerMinute < 1 || tokensPerMinute < 1 || maxInFlight < 1) {
            throw new IllegalArgumentException("budget limits must be at least 1: rpm=" + requestsPerMinute + " tpm="
                    + tokensPerMinute + " in-flight=" + maxInFlight);
        }
        if (leaseMs < 1) throw new IllegalArgumentException("leaseMs must be positive, was " + leaseMs);
        if (inputTokensPerMinute < 0 || outputTokensPerMinute < 0) {
            throw new IllegalArgumentException("input and output limits must be 0 (none) or positive: itpm="
                    + inputTokensPerMinute + " otpm=" + outputTokensPerMinute);
        }
        if (countDelayMs < 0 || countDelayMs > MAX_COUNT_DELAY_MS) {
            throw new IllegalArgumentException(
                    "countDelayMs must be in [0, " + MAX_COUNT_DELAY_MS + "], was " + countDelayMs);
        }
    }

    /** No input/output split: what a provider with one token limit (OpenAI) enforces; no count delay. */
    public BudgetLimits(long requestsPerMinute, long tokensPerMinute, int maxInFlight, long leaseMs) {
        this(requestsPerMinute, tokensPerMinute, maxInFlight, leaseMs, 0, 0, 0);
    }

    /** With input/output limits of their own; no count delay. */
    public BudgetLimits(
            long requestsPerMinute,
            long tokensPerMinute,
            int maxInFlight,
            long leaseMs,
            long inputTokensPerMinute,
            long outputTokensPerMinute) {
        this(requestsPerMinute, tokensPerMinute, maxInFlight, leaseMs, inputTokensPerMinute, outputTokensPerMinute, 0);
    }

    /** Whether input or output tokens have windows of their own (costs two more keys in Redis only then). */
    public boolean split() {
        return inputTokensPerMinute > 0 || outputTokensPerMinute > 0;
    }

    /**
     * The most tokens a minute can take, to size things by (the fair queue's credit): the total cap,
     * or without one, the split caps added (saturated).
     */
    public long tokenScale() {
        if (tokensPerMinute < Long.MAX_VALUE || !split()) return tokensPerMinute;
        long sum = inputTokensPerMinute + outputTokensPerMinute;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** A provider's published limits × its headroom (each at least 1). */
    public static BudgetLimits of(ModelLimits published, double headroom, Duration lease) {
        if (!(headroom > 0 && headroom <= 1))
            throw new IllegalArgumentException("headroom must be in (0, 1], was " + headroom);
        return new BudgetLimits(
                Math.max(1, (long) Math.floor(published.requestsPerMinute() * headroom)),
                // No total published: the split limits are the only token caps (a total of their sum
                // would bind wrongly, since output is settled down and the total is not).
                published.tokensPerMinute() == 0 ? Long.MAX_VALUE : reduced(published.tokensPerMinute(), headroom),
                Math.max(1, (int) Math.floor(published.maxInFlight() * headroom)),
                lease.toMillis(),
                reduced(published.inputTokensPerMinute(), headroom),
                reduced(published.outputTokensPerMinute(), headroom));
    }

    /** {@code limit × headroom}, at least 1; 0 (no limit) stays 0. */
    private static long reduced(long limit, double headroom) {
        return limit == 0 ? 0 : Math.max(1, (long) Math.floor(limit * headroom));
    }

    /** The limits for {@code model} at {@code provider} (its own entry, else "*"), or null if it has none. */
    public static BudgetLimits of(ProviderSettings provider, String model, Duration lease) {
        ModelLimits published = provider.limitsFor(model);
        return published == null ? null : of(published, provider.headroom(), lease);
    }

    /** The same budget with a lower concurrency cap (an adaptive limit); never above the configured one. */
    public BudgetLimits withMaxInFlight(int limit) {
        int capped = Math.max(1, Math.min(limit, maxInFlight));
        return capped == maxInFlight
                ? this
                : new BudgetLimits(
                        requestsPerMinute,
                        tokensPerMinute,
                        capped,
                        leaseMs,
                        inputTokensPerMinute,
                        outputTokensPerMinute,
                        countDelayMs);
    }

    /** The same budget with its charges stamped {@code ms} after the admission. */
    public BudgetLimits withCountDelay(long ms) {
        return ms == countDelayMs
                ? this
                : new BudgetLimits(
                        requestsPerMinute,
                        tokensPerMinute,
                        maxInFlight,
                        leaseMs,
                        inputTokensPerMinute,
                        outputTokensPerMinute,
                        ms);
    }

    /**
     * What a caller refused for want of a slot is told to wait: the time for one call of the
     * longest length a lease allows ({@code leaseMs / 2}) to free one of the slots, when they
     * finish evenly spread (Little's law). A hint, bounded to [10 ms, 1 s]: a replica should also
     * retry when it releases a slot itself.
     */
    public long inFlightHintMs() {
        return Math.max(10, Math.min(1000, leaseMs / 2 / maxInFlight));
    }
}
