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
 * @param countDelay       how long after its admission the provider may count a call: the request's
 *                         way to the provider and how far the provider's clock may run behind. A
 *                         provider budget's charge is stamped that much later, so it leaves the
 *                         gateway's rolling minute no sooner than the provider's; in [0, 1s]
 */
@ConfigurationProperties("sluice.dispatch")
public record DispatchProperties(@DefaultValue("10000") int queueCapacity,
                                 @DefaultValue("0.1") double interactiveFloor,
                                 @DefaultValue("10m") Duration lease,
                                 @DefaultValue("3") int maxAttempts,
                                 @DefaultValue("2s") Duration storeTimeout,
                                 @DefaultValue("250ms") Duration countDelay) {
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
    }
}
