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

    /** The same budget under another name (a level's budget as its tier names it). */
    public SpendUsage withName(String other) {
        return new SpendUsage(other, period, limitMicros, usedMicros, resetMs);
    }

    public double utilisation() {
        return (double) usedMicros / limitMicros;
    }
}
