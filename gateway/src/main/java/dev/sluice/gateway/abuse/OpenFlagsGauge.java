package dev.sluice.gateway.abuse;

import dev.sluice.gateway.support.Periodic;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * {@code sluice.abuse.flags.open}: how many abuse flags wait for review, for the whole fleet.
 * The count comes from the flag store (one HLEN in Redis), read every interval off the request
 * path; a failed read keeps the last count. Every replica reports the same fleet-wide number,
 * so dashboards and alerts take {@code max()} over replicas, not {@code sum()}.
 */
public final class OpenFlagsGauge {
    public static final String NAME = "sluice.abuse.flags.open";
    private static final Logger log = LoggerFactory.getLogger(OpenFlagsGauge.class);

    private final FlagStore flags;
    private final AtomicLong open = new AtomicLong();
    private final Periodic polling = new Periodic(
            "open flags count",
            () -> refresh().onErrorResume(e -> {
                log.debug("Could not count open flags: {}", e.toString());
                return Mono.empty();
            }));

    public OpenFlagsGauge(FlagStore flags, MeterRegistry meters) {
        this.flags = flags;
        Gauge.builder(NAME, open, AtomicLong::get)
                .description("Abuse flags open (waiting for review), fleet-wide")
                .register(meters);
    }

    /** Reads the count once. */
    public Mono<Long> refresh() {
        return flags.countOpen().doOnNext(open::set);
    }

    public void start(Duration interval) {
        polling.start(Duration.ZERO, interval);
    }

    public void stop() {
        polling.stop();
    }
}
