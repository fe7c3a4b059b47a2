package dev.sluice.gateway.api;

/**
 * OpenAI's durations, as in {@code x-ratelimit-reset-*} and "Please try again in …": Go's
 * {@code time.Duration} syntax at millisecond precision ({@code 0s}, {@code 20ms}, {@code 1.5s},
 * {@code 6m0s}, {@code 1h2m3.5s}). The one codec: the gateway writes its own headers with it, reads
 * the provider's with it, and the lab provider answers with it, so all three agree.
 *
 * <p>Zero is {@code 0s}, as Go and therefore OpenAI write it (never {@code 0ms}). A negative
 * duration is written as {@code 0s} (a reset already past is "now") and refused when read.
 */
public final class OpenAiDuration {
    private static final long NANOS_PER_MS = 1_000_000;

    private OpenAiDuration() {
    }

    /** {@code millis} as OpenAI writes it; negative values are clamped to {@code 0s}. */
    public static String format(long millis) {
        if (millis <= 0) return "0s";
        if (millis < 1000) return millis + "ms";
        long totalSeconds = millis / 1000;
        long h = totalSeconds / 3600;
        long m = (totalSeconds % 3600) / 60;
        long s = totalSeconds % 60;
        long fraction = millis % 1000;
        // By hand, not String.format and a regex: this runs for every answer, and the formatted
        // version was 2% of the gateway's CPU in the overhead benchmark.
        StringBuilder out = new StringBuilder(16);
        if (h > 0) out.append(h).append('h');
        if (h > 0 || m > 0) out.append(m).append('m');
        out.append(s);
        if (fraction > 0) appendFraction(out, fraction);
        return out.append('s').toString();
    }

    /** 1..999 ms as the digits after a decimal point, trailing zeros dropped (50 → ".05"). */
    private static void appendFraction(StringBuilder out, long millis) {
        out.append('.').append((char) ('0' + millis / 100));
        long rest = millis % 100;
        if (rest == 0) return;
        out.append((char) ('0' + rest / 10));
        if (rest % 10 != 0) out.append((char) ('0' + rest % 10));
    }

    /**
     * Milliseconds in a duration such as {@code 6m0s}, {@code 1.5s}, {@code 20ms} or {@code 850us}
     * (any of Go's units, rounded up to a whole millisecond so that a client never comes back
     * early), or in a bare number of seconds as {@code Retry-After} and some OpenAI-compatible
     * providers write it. Values past {@code Long.MAX_VALUE} ms saturate there.
     *
     * @return the milliseconds, or -1 when the value is missing, negative or not a duration
     */
    public static long parseMillis(String value) {
        if (value == null) return -1;
        String v = value.trim();
        if (v.isEmpty()) return -1;
        long ms = 0;
        long subMsNanos = 0;
        int i = 0;
        try {
            while (i < v.length()) {
                int wholeStart = i;
                long whole = 0;
                boolean wholeSaturated = false;
                while (i < v.length() && isDigit(v.charAt(i))) {
                    if (!wholeSaturated) {
                        try {
                            whole = Math.addExact(Math.multiplyExact(whole, 10), v.charAt(i) - '0');
                        } catch (ArithmeticException e) {
                            wholeSaturated = true;
                        }
                    }
                    i++;
                }
                int fractionStart = i < v.length() && v.charAt(i) == '.' ? ++i : -1;
                while (i < v.length() && isDigit(v.charAt(i))) i++;
                int fractionEnd = i;
                boolean noWhole = fractionStart < 0 ? i == wholeStart : fractionStart - 1 == wholeStart;
                boolean noFraction = fractionStart < 0 || fractionEnd == fractionStart;
                if (noWhole && noFraction) return -1; // no number here: garbage, a sign, or a unit alone
                int unitStart = i;
                while (i < v.length() && !isDigit(v.charAt(i)) && v.charAt(i) != '.') i++;
                String unitText = v.substring(unitStart, i);
                if (unitText.isEmpty() && !(wholeStart == 0 && i == v.length())) return -1; // "1s2"
                long unitNanos = unitText.isEmpty() ? 1_000_000_000L : unitNanos(unitText); // bare: seconds
                if (unitNanos < 0) return -1;
                if (wholeSaturated) return Long.MAX_VALUE;
                // The fraction of one unit, in nanoseconds (exact down to 1 ns: at most 3.6e12 for an hour).
                long fractionNanos = 0;
                if (fractionStart >= 0) {
                    long scale = unitNanos;
                    for (int f = fractionStart; f < fractionEnd && scale > 1; f++) {
                        scale /= 10;
                        fractionNanos += (v.charAt(f) - '0') * scale;
                    }
                }
                if (unitNanos >= NANOS_PER_MS) {
                    ms = Math.addExact(ms, Math.multiplyExact(whole, unitNanos / NANOS_PER_MS));
                } else {
                    // ns and us: whole below a millisecond per unit, summed in nanoseconds first.
                    ms = Math.addExact(ms, Math.multiplyExact(whole / NANOS_PER_MS, unitNanos));
                    subMsNanos = Math.addExact(subMsNanos, (whole % NANOS_PER_MS) * unitNanos);
                }
                ms = Math.addExact(ms, fractionNanos / NANOS_PER_MS);
                subMsNanos = Math.addExact(subMsNanos, fractionNanos % NANOS_PER_MS);
            }
            return Math.addExact(ms, (subMsNanos + NANOS_PER_MS - 1) / NANOS_PER_MS);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "h" -> 3_600_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "s" -> 1_000_000_000L;
            case "ms" -> NANOS_PER_MS;
            case "us", "µs", "μs" -> 1_000;
            case "ns" -> 1;
            default -> -1;
        };
    }
}
