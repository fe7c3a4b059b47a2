package dev.sluice.gateway.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The dispatcher in front of each provider: its fair queue, its slots' leases and retries
 * ({@code sluice.dispatch.*}).
 *
 * @param queueCapacity    requests one replica holds waiting for a provider slot; the next gets 503
 *                         gateway_busy
 * @param interactiveFloor share of each provider budget (requests, tokens, calls in flight) that batch
 *                         requests may not take, kept for interactive ones; in [0, 1)
 * @param lease            how long a provider slot is held before it counts as abandoned (a replica
 *                         that died mid-call); above the HTTP client's response timeout
 * @param maxAttempts      tries of one request whose provider answers 503 (each after its retry-after)
 * @param storeTimeout     longest wait for one budget call to the store from the dispatcher's loop
 * @param countDelay       how long after the gateway sent a call the provider may count it: the
 *                         request's way to the provider and how far the provider's clock may run
 *                         behind. A provider budget's charge is stamped that much after its
 *                         admission, and settled at least that much after the sending, so it leaves
 *                         the gateway's rolling minute no sooner than the provider's; in [0, 1s]
 * @param spillWait        where a model has several providers: a request goes to the first on its
 *                         route that can start it within this, else to the one that can start it soonest
 * @param failover         when a provider counts as failing, and how long it is stepped around
 */
@ConfigurationProperties("sluice.dispatch")
@Validated
public record DispatchProperties(
        @Min(1) @DefaultValue("10000") int queueCapacity,

        @DecimalMin("0") @DecimalMax(value = "1", inclusive = false) @DefaultValue("0.1")
        double interactiveFloor,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("10m")
        Duration lease,

        @Min(1) @DefaultValue("3") int maxAttempts,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("2s")
        Duration storeTimeout,

        @DurationMin(nanos = 0) @DurationMax(seconds = 1) @DefaultValue("250ms")
        Duration countDelay,

        @DurationMin(nanos = 0) @DurationMax(minutes = 10) @DefaultValue("500ms")
        Duration spillWait,

        @Valid @DefaultValue Failover failover) {
    /**
     * {@code sluice.dispatch.failover.*}: when a provider counts as failing, and how long it is
     * stepped around (its budgets send nothing, its routes spill to the next provider).
     *
     * @param failures     calls in a row that failed (connection refused or reset, no answer in
     *                     time, a 5xx other than 503) before the provider is stepped around
     * @param cooldown     how long it is stepped around the first time; then one call probes it
     * @param maxCooldown  the longest it is stepped around: each failed probe doubles the period up to this
     * @param probeTimeout how long a probe may go unanswered before another call probes; a probe
     *                     whose route has another provider goes there after this, as a failure
     * @param firstByteTimeout where the route has another provider: how long a call may wait for
     *                     its provider's status and headers before it counts as failed and goes to
     *                     the next one. 0 (the default): the HTTP client's {@code response-timeout}.
     *                     The provider may have started the work, so the call stays charged there;
     *                     set it above the longest time to first byte of a healthy provider
     * The periods are at most 1d: they become milliseconds, and a longer one means "never", better said otherwise.
     */
    @NotLessThan(value = "maxCooldown", other = "cooldown")
    public record Failover(
            @Min(1) @DefaultValue("3") int failures,

            @DurationMin(nanos = 0, inclusive = false) @DurationMax(days = 1) @DefaultValue("1s")
            Duration cooldown,

            @DurationMin(nanos = 0, inclusive = false) @DurationMax(days = 1) @DefaultValue("10s")
            Duration maxCooldown,

            @DurationMin(nanos = 0, inclusive = false) @DurationMax(days = 1) @DefaultValue("10s")
            Duration probeTimeout,

            @DurationMin(nanos = 0) @DurationMax(days = 1) @DefaultValue("0s")
            Duration firstByteTimeout) {}
}
