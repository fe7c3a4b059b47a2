package dev.sluice.gateway.dispatch.health;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;

/**
 * Adaptive concurrency, additive increase / multiplicative decrease: call outcomes
 * in, a concurrency limit out. Pure math with time passed in; it holds no permits (the
 * provider budget's in-flight slots do: pass {@link #limit()} through
 * {@link BudgetLimits#withMaxInFlight}).
 *
 * <p>Outcomes are collected over a fixed evaluation interval and judged once when it closes,
 * so a burst of answers moves the limit one step, not one step per answer. An interval with
 * fewer than {@code minSamples} outcomes is no verdict on the provider: with a drop in it, it is
 * dropped (a lone timeout at night); clean, it is carried into the next interval until enough
 * have come, for at most {@link #GATHER_MS}. Without the carry a slow provider could only lose
 * limit: seven calls of two seconds never answer ten times in one interval, so no clean interval
 * ever raised a limit that a quick burst of 429s had lowered (a random world held a provider at
 * 6 of its 14 slots for 200 s with 600 jobs waiting). A judged interval with any overload,
 * timeout or 429 multiplies the limit by {@code decrease}; a clean one adds {@code increase}, but
 * only if the calls actually pressed on the limit (at least half of it in flight): a limit nobody
 * used proves nothing and must not creep up to the ceiling on a quiet night. The limit never
 * leaves [floor, ceiling].
 *
 * <p>Thread-safe: outcomes arrive on whatever thread answered the call.
 */
public final class AimdLimit {

    /** What one upstream call came to. */
    public enum Outcome {
        SUCCESS,
        /** 503 overloaded, or another answer that says the provider is saturated. */
        OVERLOAD,
        TIMEOUT,
        /** 429: the budget pauses too, but it also says we pushed too hard. */
        RATE_LIMITED,
        /**
         * No answer for a reason that says nothing of load (the connection refused or reset): the
         * provider's circuit's business, not a sample. A provider that was down must not come
         * back at the floor.
         */
        FAILED;

        boolean isDrop() {
            return this != SUCCESS;
        }
    }

    /**
     * @param initial    the limit before any evidence
     * @param floor      the lowest limit, so some work always progresses
     * @param ceiling    the highest, e.g. the provider's in-flight limit with headroom
     * @param increase   added after a clean interval
     * @param decrease   factor in (0, 1) applied after an interval with drops, e.g. 0.7
     * @param minSamples outcomes an interval needs before it may change the limit
     * @param intervalMs length of an evaluation interval
     */
    public record Settings(
            int initial, int floor, int ceiling, int increase, double decrease, int minSamples, long intervalMs) {
        public Settings {
            if (floor < 1 || ceiling < floor || initial < floor || initial > ceiling) {
                throw new IllegalArgumentException("need 1 <= floor <= initial <= ceiling, was floor=" + floor
                        + " initial=" + initial + " ceiling=" + ceiling);
            }
            if (increase < 1) throw new IllegalArgumentException("increase must be at least 1, was " + increase);
            if (!(decrease > 0 && decrease < 1))
                throw new IllegalArgumentException("decrease must be in (0, 1), was " + decrease);
            if (minSamples < 1) throw new IllegalArgumentException("minSamples must be at least 1, was " + minSamples);
            if (intervalMs < 1) throw new IllegalArgumentException("intervalMs must be positive, was " + intervalMs);
        }

        /** Starts at the ceiling (the budget already caps it), floor a tenth of it, +1 / ×0.7, 10 samples a second. */
        public static Settings startingAt(int ceiling) {
            return new Settings(ceiling, Math.max(1, ceiling / 10), ceiling, 1, 0.7, 10, 1_000);
        }
    }

    /** The longest clean outcomes are carried towards {@code minSamples}, from the interval they came in. */
    public static final long GATHER_MS = 60_000;

    private final Settings settings;
    private volatile int limit;
    private long intervalStartMs = Long.MIN_VALUE;
    /** Where the outcomes not yet judged began: an earlier interval's when they were carried. */
    private long gatheredFromMs = Long.MIN_VALUE;

    private int samples;
    private int drops;
    private int maxInFlight;

    public AimdLimit(Settings settings) {
        this.settings = settings;
        this.limit = settings.initial();
    }

    public int limit() {
        return limit;
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Records one call's outcome, first closing the interval if it is over.
     *
     * @param inFlight calls in flight when this one was sent (this one included)
     * @return the limit now
     */
    public synchronized int onSample(long nowMs, Outcome outcome, int inFlight) {
        if (outcome == Outcome.FAILED) return tick(nowMs);
        tick(nowMs);
        if (intervalStartMs == Long.MIN_VALUE) intervalStartMs = nowMs;
        samples++;
        if (outcome.isDrop()) drops++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return limit;
    }

    /** Closes the interval if it is over (for a timer; samples do this themselves). */
    public synchronized int tick(long nowMs) {
        if (intervalStartMs == Long.MIN_VALUE || nowMs - intervalStartMs < settings.intervalMs()) return limit;
        if (gatheredFromMs == Long.MIN_VALUE) gatheredFromMs = intervalStartMs;
        if (samples >= settings.minSamples()) {
            if (drops > 0) {
                limit = Math.max(settings.floor(), (int) Math.floor(limit * settings.decrease()));
            } else if (2L * maxInFlight >= limit) {
                limit = Math.min(settings.ceiling(), limit + settings.increase());
            }
            forget();
        } else if (drops > 0 || nowMs - gatheredFromMs > GATHER_MS) {
            forget(); // too few to judge: a blip, or clean outcomes gathered too long ago to count
        } // else clean and too few: carried into the next interval
        // Intervals stay on their fixed grid; a silent stretch starts a fresh one.
        long elapsed = (nowMs - intervalStartMs) / settings.intervalMs();
        intervalStartMs = elapsed == 1 ? intervalStartMs + settings.intervalMs() : Long.MIN_VALUE;
        return limit;
    }

    private void forget() {
        gatheredFromMs = Long.MIN_VALUE;
        samples = 0;
        drops = 0;
        maxInFlight = 0;
    }
}
