package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.config.DispatchProperties;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * How long a call may wait for its provider's status and headers before it goes to the route's
 * next provider ({@code sluice.dispatch.failover.first-byte-timeout}), and the timer that fails it
 * then. Once the answer has begun the timer has no say; what follows is {@link UpstreamTimeouts}'.
 */
public final class FirstByteTimeout {
    private FirstByteTimeout() {}

    /**
     * How long this call may wait for its provider's status and headers before it goes to the
     * next provider (0: as long as the HTTP client waits). Only where there is a next provider:
     * alone, waiting is the better deal. A probe of a failing provider gets the probe timeout.
     */
    public static Duration of(DispatchProperties.Failover failover, boolean probe, boolean mayFailOver) {
        if (!mayFailOver) return Duration.ZERO;
        Duration configured = failover.firstByteTimeout();
        if (!probe) return configured;
        return configured.isZero() || failover.probeTimeout().compareTo(configured) < 0
                ? failover.probeTimeout()
                : configured;
    }

    /**
     * The call, failed with a {@link TimeoutException} if the provider's
     * headers have not arrived within {@code timeout} (and cancelled: the connection is closed).
     */
    public static Mono<Void> within(Mono<Void> call, UpstreamAnswer answer, Duration timeout) {
        if (timeout.isZero()) return call;
        return call.timeout(
                Mono.delay(timeout).flatMap(t -> answer.begun() ? Mono.never() : Mono.just(t)),
                Mono.error(() -> new TimeoutException(
                        "no status and headers from the provider within " + timeout.toMillis() + " ms")));
    }
}
