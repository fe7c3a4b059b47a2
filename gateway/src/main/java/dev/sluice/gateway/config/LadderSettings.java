package dev.sluice.gateway.config;

/** The degradation ladder: downgrade above a share of the tightest window, then a jittered delay, then 429. */
public record LadderSettings(double downgradeAbove, long delayMinMs, long delayMaxMs, long maxDelayMs, int maxHeld) {
    public LadderSettings {
        if (downgradeAbove <= 0 || downgradeAbove > 1)
            throw new IllegalArgumentException("downgrade-above must be in (0, 1]");
        if (delayMinMs < 0 || delayMaxMs < delayMinMs)
            throw new IllegalArgumentException("need 0 <= delay-min-ms <= delay-max-ms");
        if (maxDelayMs < 0 || maxHeld < 0)
            throw new IllegalArgumentException("max-delay-ms and max-held must not be negative");
    }

    public static LadderSettings defaults() {
        return new LadderSettings(0.80, 200, 800, 2000, 1000);
    }
}
