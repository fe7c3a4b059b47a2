package dev.sluice.gateway.config;

import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How long an answer that has begun may keep the client and a provider slot waiting
 * ({@code sluice.upstream.*}). The wait for the provider's first byte is the HTTP client's
 * {@code response-timeout}; these bound what comes after it.
 *
 * @param streamIdleTimeout longest silence between two chunks of a stream (and before its first):
 *                          past it the client gets an error event with code upstream_timeout
 * @param bodyTimeout       longest time to receive a whole non-stream answer once its headers came:
 *                          past it, 504 upstream_timeout
 */
@ConfigurationProperties("sluice.upstream")
@Validated
public record UpstreamProperties(
        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("120s")
        Duration streamIdleTimeout,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("120s")
        Duration bodyTimeout) {}
