package dev.sluice.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

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
public record DispatchProperties(@DefaultValue("10000") int queueCapacity,
                                 @DefaultValue("0.1") double interactiveFloor,
                                 @DefaultValue("10m") Duration lease,
                                 @DefaultValue("3") int maxAttempts,
                                 @DefaultValue("2s") Duration storeTimeout,
                                 @DefaultValue("250ms") Duration countDelay,
                                 @DefaultValue("500ms") Duration spillWait,
                                 @DefaultValue Failover failover) {
    /** The longest failover period: they become milliseconds, and a longer one means "never", better said otherwise. */
    private static final Duration DAY = Duration.ofDays(1);

    public DispatchProperties {
        Checks.atLeast("sluice.dispatch.queue-capacity", queueCapacity, 1);
        // Negated so that NaN fails too.
        if (!(interactiveFloor >= 0 && interactiveFloor < 1)) {
            throw new IllegalArgumentException("sluice.dispatch.interactive-floor must be in [0, 1), was " + interactiveFloor);
        }
        Checks.positive("sluice.dispatch.lease", lease);
        Checks.atLeast("sluice.dispatch.max-attempts", maxAttempts, 1);
        Checks.positive("sluice.dispatch.store-timeout", storeTimeout);
        Checks.within("sluice.dispatch.count-delay", countDelay, Duration.ofSeconds(1));
        Checks.within("sluice.dispatch.spill-wait", spillWait, Duration.ofMinutes(10));
    }

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
     */
    public record Failover(@DefaultValue("3") int failures,
                           @DefaultValue("1s") Duration cooldown,
                           @DefaultValue("10s") Duration maxCooldown,
                           @DefaultValue("10s") Duration probeTimeout,
                           @DefaultValue("0s") Duration firstByteTimeout) {
        public Failover {
            Checks.atLeast("sluice.dispatch.failover.failures", failures, 1);
            Checks.within("sluice.dispatch.failover.cooldown", Checks.positive("sluice.dispatch.failover.cooldown", cooldown), DAY);
            Checks.within("sluice.dispatch.failover.max-cooldown",
                    Checks.positive("sluice.dispatch.failover.max-cooldown", maxCooldown), DAY);
            Checks.within("sluice.dispatch.failover.probe-timeout",
                    Checks.positive("sluice.dispatch.failover.probe-timeout", probeTimeout), DAY);
            Checks.within("sluice.dispatch.failover.first-byte-timeout", firstByteTimeout, DAY);
            if (maxCooldown.compareTo(cooldown) < 0) {
                throw new IllegalArgumentException("sluice.dispatch.failover.max-cooldown (" + maxCooldown
                        + ") must be at least cooldown (" + cooldown + ")");
            }
        }
    }
}
