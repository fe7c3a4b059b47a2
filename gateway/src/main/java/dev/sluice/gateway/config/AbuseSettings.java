package dev.sluice.gateway.config;

/** The abuse rule: at or above {@code threshold} of the ceiling for {@code consecutiveMinutes} or more. */
public record AbuseSettings(double threshold, int consecutiveMinutes, int historyHours) {
    public AbuseSettings {
        if (threshold <= 0 || threshold > 1) throw new IllegalArgumentException("threshold must be in (0, 1]");
        if (consecutiveMinutes < 1 || historyHours < 1)
            throw new IllegalArgumentException("minutes and hours must be positive");
    }

    public static AbuseSettings defaults() {
        return new AbuseSettings(0.90, 15, 24);
    }
}
