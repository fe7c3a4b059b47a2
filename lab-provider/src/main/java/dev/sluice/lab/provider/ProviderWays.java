package dev.sluice.lab.provider;

import java.time.Duration;

/**
 * The ways in which the lab provider differs from Sluice's picture of it, beside its limits: how it
 * counts a prompt, how far its window clock is from the gateway's, and how long its answers travel.
 * {@link #DEFAULT} is a provider that agrees with the gateway on all three.
 *
 * @param promptCount  how the provider counts the prompt it limits and bills
 * @param clockOffset  added to the clock the provider's windows run on (positive: the provider is ahead)
 * @param extraLatency network time each answer takes after the provider has counted the call; the
 *                     in-flight slot is freed when generation ends, not when the answer lands
 * @param requestLatency the most network time a request takes before the provider counts it, each
 *                     request a random share of it: the gateway has charged its own window that
 *                     much earlier than the provider's, and not by the same amount for every call
 * @param statesProcessingTime whether a whole (JSON) answer says how long the provider took after counting the call
 *                     ({@code openai-processing-ms}, as OpenAI sends it); many OpenAI-compatible servers do not,
 *                     and the gateway then has no proof of when the call was counted
 */
public record ProviderWays(
        PromptCount promptCount,
        Duration clockOffset,
        Duration extraLatency,
        Duration requestLatency,
        boolean statesProcessingTime) {

    /** Clocks a minute apart are not an offset to model but a broken clock. */
    static final Duration MAX_CLOCK_OFFSET = Duration.ofSeconds(60);

    static final Duration MAX_EXTRA_LATENCY = Duration.ofSeconds(60);

    public static final ProviderWays DEFAULT =
            new ProviderWays(PromptCount.DEFAULT, Duration.ZERO, Duration.ZERO, Duration.ZERO);

    /** A provider that states its processing time, as OpenAI does. */
    public ProviderWays(PromptCount promptCount, Duration clockOffset, Duration extraLatency, Duration requestLatency) {
        this(promptCount, clockOffset, extraLatency, requestLatency, true);
    }

    /** A provider whose requests arrive at once. */
    public ProviderWays(PromptCount promptCount, Duration clockOffset, Duration extraLatency) {
        this(promptCount, clockOffset, extraLatency, Duration.ZERO);
    }

    public ProviderWays {
        if (promptCount == null) {
            throw new IllegalArgumentException("prompt count must be set");
        }
        if (clockOffset == null || clockOffset.abs().compareTo(MAX_CLOCK_OFFSET) > 0) {
            throw new IllegalArgumentException(
                    "clock offset must be within ±" + MAX_CLOCK_OFFSET + ", was " + clockOffset);
        }
        requireLatency("extra latency", extraLatency);
        requireLatency("request latency", requestLatency);
    }

    private static void requireLatency(String what, Duration latency) {
        if (latency == null || latency.isNegative() || latency.compareTo(MAX_EXTRA_LATENCY) > 0) {
            throw new IllegalArgumentException(
                    what + " must be between 0 and " + MAX_EXTRA_LATENCY + ", was " + latency);
        }
    }

    public ProviderWays withPromptCount(PromptCount v) {
        return new ProviderWays(v, clockOffset, extraLatency, requestLatency, statesProcessingTime);
    }

    public ProviderWays withClockOffset(Duration v) {
        return new ProviderWays(promptCount, v, extraLatency, requestLatency, statesProcessingTime);
    }

    public ProviderWays withExtraLatency(Duration v) {
        return new ProviderWays(promptCount, clockOffset, v, requestLatency, statesProcessingTime);
    }

    public ProviderWays withStatesProcessingTime(boolean v) {
        return new ProviderWays(promptCount, clockOffset, extraLatency, requestLatency, v);
    }

    public ProviderWays withRequestLatency(Duration v) {
        return new ProviderWays(promptCount, clockOffset, extraLatency, v, statesProcessingTime);
    }
}
