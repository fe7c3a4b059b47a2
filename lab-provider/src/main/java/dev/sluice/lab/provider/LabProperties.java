package dev.sluice.lab.provider;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code sluice.lab.*}: where the built-in provider listens and the limits it enforces (seed 000's
 * by default). Validated when bound, so a bad value stops the start with the field's name.
 */
@ConfigurationProperties("sluice.lab")
public record LabProperties(
        @DefaultValue("8081") int port,
        @DefaultValue("1500") int requestsPerMinute,
        @DefaultValue("300000") long tokensPerMinute,
        @DefaultValue("200") int maxInFlight,
        @DefaultValue("3.0") double pricePerMillionTokens,
        @DefaultValue("2s") Duration latency,
        @DefaultValue("0.1") double latencyJitter,
        @DefaultValue("60s") Duration window,
        @DefaultValue("200") int completionTokens) {

    public LabProperties {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("sluice.lab.port must be in [0, 65535] (0 = any free port), was " + port);
        }
        // Build the limits once here only to validate them at binding time.
        new LabLimits(requestsPerMinute, tokensPerMinute, maxInFlight, pricePerMillionTokens, latency,
                latencyJitter, window, completionTokens);
    }

    public LabLimits toLimits() {
        return new LabLimits(requestsPerMinute, tokensPerMinute, maxInFlight, pricePerMillionTokens, latency,
                latencyJitter, window, completionTokens);
    }
}
