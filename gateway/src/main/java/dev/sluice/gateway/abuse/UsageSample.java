package dev.sluice.gateway.abuse;

import dev.sluice.gateway.api.Stage;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One point of a tenant's usage series: the minute starting at {@code minuteStartMs}, sampled
 * as it ended. {@code tokens} and {@code requests} are what the tenant's 60 s window held then;
 * {@code utilisation} is the tightest window's share of its cap ({@code window} names it), the
 * number the ceiling detector read before {@code ceiling} existed (and still reads when it is null);
 * {@code stages} counts what the request path did in the minute. {@code ceiling} is the minute's
 * {@link CeilingSignal}: how hard the tenant pressed on its ceiling during the minute, not as it
 * ended; null for a minute the quota answered nothing, and for points stored before it existed.
 */
public record UsageSample(
        long minuteStartMs,
        String tier,
        long tokens,
        long requests,
        double utilisation,
        String window,
        Map<String, Long> stages,
        Ceiling ceiling) {
    public UsageSample {
        if (minuteStartMs % 60_000 != 0)
            throw new IllegalArgumentException("a sample's minute starts on a whole minute");
        Objects.requireNonNull(tier, "tier");
        Objects.requireNonNull(window, "window");
        if (tokens < 0 || requests < 0 || !(utilisation >= 0))
            throw new IllegalArgumentException("usage must not be negative");
        Map<String, Long> ordered = new LinkedHashMap<>();
        for (Stage s : Stage.SERIES) ordered.put(s.label(), stages.getOrDefault(s.label(), 0L));
        stages = Collections.unmodifiableMap(ordered);
    }

    /** The number to compare with the abuse threshold: the ceiling signal's pressure, else the snapshot's utilisation. */
    public double pressure() {
        return ceiling != null ? ceiling.pressure() : utilisation;
    }

    /** Every stage, zeros included, in the order of {@link Stage#SERIES}. */
    @Override
    public Map<String, Long> stages() {
        return stages;
    }
}
