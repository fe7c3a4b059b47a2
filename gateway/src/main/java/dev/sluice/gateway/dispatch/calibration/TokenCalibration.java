package dev.sluice.gateway.dispatch.calibration;

import java.util.Collection;

/**
 * How many tokens the provider counts for a prompt Sluice estimated at {@code n}: about
 * {@code n × ratio}. Providers count their own way (another tokenizer, per-message overhead,
 * images), so the ratio is learned per provider budget from each answer's {@code prompt_tokens}.
 * Pure: the state is a value, every step returns a new one, time plays no part.
 * <p>The first {@link Settings#fastSamples} samples are a plain mean (one sample already moves it
 * all the way); after them an EWMA, so one odd answer cannot swing it. The ratio stays within
 * {@code [min, max]}; until the first sample it is the configured default.
 */
public final class TokenCalibration {
    /** A sample whose ratio is further than this factor from 1 is not a count, it is garbage. */
    static final double ABSURD = 10.0;
    /** Sample counts stop here: weights stay exact in a double and sums cannot overflow. */
    static final long MAX_SAMPLES = 1L << 40;

    private TokenCalibration() {}

    /**
     * @param defaultRatio the ratio before any answer (conservative: 1.0 or above, with the headroom)
     * @param min          the lowest ratio ever used
     * @param max          the highest ratio ever used
     * @param fastSamples  samples averaged plainly before the EWMA takes over
     * @param smoothing    the EWMA's weight of a new sample, in (0, 1]
     */
    public record Settings(double defaultRatio, double min, double max, int fastSamples, double smoothing) {
        public Settings {
            // Negated comparisons, so that NaN fails too.
            if (!(min > 0) || !(max >= min) || !Double.isFinite(max)) {
                throw new IllegalArgumentException(
                        "calibration bounds must satisfy 0 < min <= max, were [" + min + ", " + max + "]");
            }
            if (!(defaultRatio >= min && defaultRatio <= max)) {
                throw new IllegalArgumentException(
                        "calibration default ratio " + defaultRatio + " must be within [" + min + ", " + max + "]");
            }
            if (fastSamples < 1)
                throw new IllegalArgumentException("calibration fast samples must be at least 1, was " + fastSamples);
            if (!(smoothing > 0 && smoothing <= 1)) {
                throw new IllegalArgumentException("calibration smoothing must be in (0, 1], was " + smoothing);
            }
        }

        public static final Settings DEFAULTS = new Settings(1.25, 0.5, 2.0, 20, 0.1);

        /** The state before any answer. */
        public State initial() {
            return new State(defaultRatio, 0);
        }
    }

    /** What one replica learned: the ratio and how many samples it rests on. */
    public record State(double ratio, long samples) {}

    /**
     * The state after the provider counted {@code counted} prompt tokens where Sluice estimated
     * {@code estimated}. Zero or negative counts, and ratios beyond {@link #ABSURD}, are ignored
     * (the state comes back unchanged); a plausible ratio beyond the bounds counts as the bound.
     */
    public static State observe(State state, Settings s, long estimated, long counted) {
        if (estimated <= 0 || counted <= 0) return state;
        double sample = (double) counted / estimated;
        if (!(sample <= ABSURD && sample >= 1 / ABSURD)) return state;
        sample = clamp(sample, s);
        long n = state.samples();
        double next = n < s.fastSamples()
                ? state.ratio() * ((double) n / (n + 1)) + sample / (n + 1) // plain mean; n = 0 ignores the default
                : state.ratio() + s.smoothing() * (sample - state.ratio());
        return new State(clamp(next, s), Math.min(n + 1, MAX_SAMPLES));
    }

    /**
     * The replicas' states as one ratio, each weighted by its samples. Without any sample, the
     * default. Each replica learns from its own answers, so the weights add information.
     */
    public static double combine(Collection<State> states, Settings s) {
        return combine(null, states, s);
    }

    /** {@link #combine(Collection, Settings)} of {@code others} and {@code mine} (when not null), without a list of both. */
    public static double combine(State mine, Collection<State> others, Settings s) {
        double[] sums = new double[2]; // weighted ratios, samples
        for (State st : others) add(sums, st, s);
        if (mine != null) add(sums, mine, s);
        return sums[1] == 0 ? s.defaultRatio() : clamp(sums[0] / sums[1], s);
    }

    private static void add(double[] sums, State st, Settings s) {
        if (st.samples() <= 0 || !Double.isFinite(st.ratio())) return;
        long n = Math.min(st.samples(), MAX_SAMPLES);
        sums[0] += clamp(st.ratio(), s) * n;
        sums[1] += n;
    }

    /**
     * The tokens the provider will count against its limit: the prompt as it counts it (rounded
     * up) and the whole {@code maxOutput} it reserves. Saturates at Long.MAX_VALUE.
     */
    public static long charge(long promptEstimate, long maxOutput, double ratio) {
        double prompt = Math.ceil(Math.max(0, promptEstimate) * ratio);
        long calibrated = prompt >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) prompt;
        long total = calibrated + Math.max(0, maxOutput);
        return total < 0 ? Long.MAX_VALUE : total;
    }

    private static double clamp(double ratio, Settings s) {
        return Math.max(s.min(), Math.min(s.max(), ratio));
    }
}
