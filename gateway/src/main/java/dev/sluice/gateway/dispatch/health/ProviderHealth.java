package dev.sluice.gateway.dispatch.health;

/**
 * Whether a provider answers at all, as this replica sees it: a circuit breaker. Pure, with
 * time as an input; thread-safe (outcomes come from request threads, questions from the loop).
 * <ul>
 *   <li>CLOSED: calls go. {@code failures} failed calls in a row (connection refused or reset,
 *   no answer in time, a 5xx other than 503) open it.</li>
 *   <li>OPEN for a cooldown: the provider's budgets send nothing and its routes spill to the
 *   next provider. When the cooldown ends, one call goes as a probe.</li>
 *   <li>PROBING: that one call is out. Any answer that shows the provider alive closes the
 *   circuit (a 429 or a 503 too: overload is the budget's and the concurrency limit's business);
 *   a failure opens it again for twice as long, up to {@code maxCooldownMs}. A probe that never
 *   reports (its client left) frees the next one after {@code probeTimeoutMs}.</li>
 * </ul>
 * Kept per replica: each replica sees its own connections fail, and a shared circuit would cost
 * a store round trip on every call to say what the call itself says.
 */
public final class ProviderHealth {
    public enum State {
        CLOSED,
        OPEN,
        PROBING
    }

    /**
     * @param failures       failed calls in a row that open the circuit
     * @param cooldownMs     the first open period
     * @param maxCooldownMs  the longest, reached by doubling after each failed probe
     * @param probeTimeoutMs how long a probe may stay unanswered before another goes
     */
    public record Settings(int failures, long cooldownMs, long maxCooldownMs, long probeTimeoutMs) {
        /** sluice.dispatch.failover's defaults. */
        public static final Settings DEFAULTS = new Settings(3, 1_000, 10_000, 10_000);

        public Settings {
            if (failures < 1 || cooldownMs < 1 || maxCooldownMs < cooldownMs || probeTimeoutMs < 1) {
                throw new IllegalArgumentException(
                        "failures and periods must be positive, max-cooldown at least cooldown");
            }
        }
    }

    private final Settings settings;
    private State state = State.CLOSED;
    private int failedInARow;
    private long cooldownMs;
    private long openUntilMs;
    private long probeSinceMs;

    public ProviderHealth(Settings settings) {
        this.settings = settings;
        this.cooldownMs = settings.cooldownMs();
    }

    public synchronized State state() {
        return state;
    }

    /** 0 when a call may start now (closed, or a probe may go); else how long until the next probe may. */
    public synchronized long blockedForMs(long nowMs) {
        return switch (state) {
            case CLOSED -> 0;
            case OPEN -> Math.max(0, openUntilMs - nowMs);
            case PROBING -> Math.max(0, probeSinceMs + settings.probeTimeoutMs() - nowMs);
        };
    }

    /** Open, and its period is over: the next call to it is the probe. */
    public synchronized boolean probeDue(long nowMs) {
        return state == State.OPEN && openUntilMs <= nowMs;
    }

    /**
     * A call is about to start: true if it may. Past an open period (or a probe that never
     * reported) this call becomes the probe, and the next ones wait for its outcome.
     */
    public synchronized boolean tryStart(long nowMs) {
        if (state == State.CLOSED) return true;
        if (blockedForMs(nowMs) > 0) return false;
        state = State.PROBING;
        probeSinceMs = nowMs;
        return true;
    }

    /** {@link #tryStart}, saying whether this call is the probe (it started while the circuit was not closed). */
    public synchronized boolean startsAsProbe(long nowMs) {
        return state != State.CLOSED && tryStart(nowMs);
    }

    /** The provider answered (any status that shows it alive). True when this closed the circuit. */
    public synchronized boolean answered() {
        failedInARow = 0;
        if (state == State.CLOSED) return false;
        state = State.CLOSED;
        cooldownMs = settings.cooldownMs();
        return true;
    }

    /** A call failed. True when this opened the circuit (from closed, or a failed probe): its waiting calls should go elsewhere. */
    public synchronized boolean failed(long nowMs) {
        switch (state) {
            case CLOSED -> {
                failedInARow++;
                if (failedInARow < settings.failures()) return false;
                open(nowMs);
                return true;
            }
            case PROBING -> {
                cooldownMs = Math.min(settings.maxCooldownMs(), saturatedDouble(cooldownMs));
                open(nowMs);
                return true; // requests placed behind the probe must not wait out the new period
            }
            default -> {
                return false; // calls sent before it opened, failing now: the open period stands
            }
        }
    }

    private void open(long nowMs) {
        state = State.OPEN;
        failedInARow = 0;
        openUntilMs = nowMs + cooldownMs;
    }

    private static long saturatedDouble(long v) {
        return v > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : v * 2;
    }
}
