package dev.sluice.gateway.dispatch.upstream;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The provider's answers and the calls tried again, counted per provider and status. Each counter
 * is looked up once, not in the registry on every answer.
 */
public final class UpstreamMeters {
    public static final String RESPONSES = "sluice.upstream.responses";
    public static final String RETRIES = "sluice.upstream.retries";

    private final MeterRegistry meters;
    private final Map<String, Map<String, Counter>> responses = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Counter>> retries = new ConcurrentHashMap<>();

    /**
     * The statuses the alerts watch and the retries are at zero from start for every provider, so a
     * dashboard's rate() sees the first (docs/metrics.md lists the rest as they come).
     */
    public UpstreamMeters(MeterRegistry meters, List<String> providers) {
        this.meters = meters;
        for (String provider : providers) {
            for (String status : List.of("200", "429", "503", "timeout", "unreachable")) responses(status, provider);
            for (String status : List.of("429", "503", "failover")) retries(status, provider);
        }
    }

    /** The provider's answer by status, or "timeout" / "unreachable" when there was none. */
    public Counter responses(String status, String provider) {
        return responses
                .computeIfAbsent(provider, p -> new ConcurrentHashMap<>())
                .computeIfAbsent(status, s -> meters.counter(RESPONSES, "status", s, "provider", provider));
    }

    /** Calls tried again: after a 429 or a 503 (same provider, or the route's choice), or on another provider after a failure. */
    public Counter retries(String status, String provider) {
        return retries.computeIfAbsent(provider, p -> new ConcurrentHashMap<>())
                .computeIfAbsent(
                        status,
                        s -> Counter.builder(RETRIES)
                                .tag("status", s)
                                .tag("provider", provider)
                                .description("Calls tried again after the provider pushed back or failed")
                                .register(meters));
    }
}
