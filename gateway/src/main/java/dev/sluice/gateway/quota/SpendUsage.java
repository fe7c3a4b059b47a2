package dev.sluice.gateway.quota;

/**
 * One spend budget's state as a caller sees it, after the decision, in micro-dollars.
 *
 * @param resetMs until the period turns (the counter starts again at zero)
 */
public record SpendUsage(String name, String period, long limitMicros, long usedMicros, long resetMs) {
    public long remainingMicros() {
        return Math.max(0, limitMicros - usedMicros);
    }

    public double utilisation() {
        return (double) usedMicros / limitMicros;
    }
}
