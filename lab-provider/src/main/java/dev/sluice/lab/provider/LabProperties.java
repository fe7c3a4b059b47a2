package dev.sluice.lab.provider;

import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code sluice.lab.*}: where the built-in provider listens, the limits it enforces
 * ({@link LabLimits#DEFAULTS} by default) and its ways (how it counts, its clock, its network; by
 * default those of the estimator and the gateway). Validated when bound, so a bad value stops the start with the field's name.
 *
 * <p>{@code tokens-per-minute=0} with {@code input-tokens-per-minute} and/or {@code output-tokens-per-minute}
 * set is a provider with split limits only (Anthropic's ITPM and OTPM).
 */
@ConfigurationProperties("sluice.lab")
public record LabProperties(int port, LabLimits limits, ProviderWays ways) {

    public LabProperties {
        checkPort(port);
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(ways, "ways");
    }

    /**
     * The properties are flat ({@code sluice.lab.tokens-per-minute}, not {@code sluice.lab.limits.…}), so
     * they bind here and the limits and ways are built once, when bound: a bad value stops the start.
     */
    @ConstructorBinding
    public LabProperties(
            @DefaultValue("8081") int port,
            @DefaultValue("1500") int requestsPerMinute,
            @DefaultValue("300000") long tokensPerMinute,
            @DefaultValue("200") int maxInFlight,
            @DefaultValue("3.0") double pricePerMillionTokens,
            @DefaultValue("2s") Duration latency,
            @DefaultValue("0.1") double latencyJitter,
            @DefaultValue("60s") Duration window,
            @DefaultValue("200") int completionTokens,
            @DefaultValue("0") long inputTokensPerMinute,
            @DefaultValue("0") long outputTokensPerMinute,
            @DefaultValue("bpe") PromptCount.Method promptCount,
            @DefaultValue("4.0") double charsPerToken,
            @DefaultValue("1.0") double countFactor,
            @DefaultValue("4") int tokensPerMessage,
            @DefaultValue("0s") Duration clockOffset,
            @DefaultValue("0s") Duration extraLatency,
            @DefaultValue("0s") Duration requestLatency) {
        // The port is checked before the limits and the ways, so it is named first when several are wrong.
        this(
                checkPort(port),
                new LabLimits(
                        requestsPerMinute,
                        tokensPerMinute,
                        maxInFlight,
                        pricePerMillionTokens,
                        latency,
                        latencyJitter,
                        window,
                        completionTokens,
                        inputTokensPerMinute,
                        outputTokensPerMinute),
                ways(
                        promptCount,
                        charsPerToken,
                        countFactor,
                        tokensPerMessage,
                        clockOffset,
                        extraLatency,
                        requestLatency));
    }

    private static int checkPort(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(
                    "sluice.lab.port must be in [0, 65535] (0 = any free port), was " + port);
        }
        return port;
    }

    private static ProviderWays ways(
            PromptCount.Method method,
            double charsPerToken,
            double factor,
            int perMessage,
            Duration clockOffset,
            Duration extraLatency,
            Duration requestLatency) {
        try {
            return new ProviderWays(
                    new PromptCount(method, charsPerToken, factor, perMessage),
                    clockOffset,
                    extraLatency,
                    requestLatency);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sluice.lab: " + e.getMessage(), e);
        }
    }
}
