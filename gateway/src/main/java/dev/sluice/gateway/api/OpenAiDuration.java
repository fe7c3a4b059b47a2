package dev.sluice.gateway.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    /** Go's units; "ms" before "m" so that the alternation never reads "5ms" as five minutes and an "s". */
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(h|ms|m|s|us|µs|μs|ns)");

    private static final Pattern BARE_SECONDS = Pattern.compile("\\d+(?:\\.\\d*)?|\\.\\d+");
    private static final Map<String, BigDecimal> UNIT_NANOS = Map.of(
            "h",
            BigDecimal.valueOf(3_600_000_000_000L),
            "m",
            BigDecimal.valueOf(60_000_000_000L),
            "s",
            BigDecimal.valueOf(1_000_000_000L),
            "ms",
            BigDecimal.valueOf(1_000_000L),
            "us",
            BigDecimal.valueOf(1_000L),
            "µs",
            BigDecimal.valueOf(1_000L),
            "μs",
            BigDecimal.valueOf(1_000L),
            "ns",
            BigDecimal.ONE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private OpenAiDuration() {}

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
     * providers write it. Exact (no double on the way), and values past {@code Long.MAX_VALUE} ms
     * saturate there.
     *
     * @return the milliseconds, or -1 when the value is missing, negative or not a duration
     */
    public static long parseMillis(String value) {
        if (value == null || value.isBlank()) return -1;
        String v = value.trim();
        long fast = fastMillis(v);
        return fast >= 0 ? fast : exactMillis(v);
    }

    /** {@link #parseMillis} of a trimmed, non-blank value in BigDecimal: any length, any unit. */
    static long exactMillis(String v) {
        BigDecimal nanos = BigDecimal.ZERO;
        if (BARE_SECONDS.matcher(v).matches()) {
            nanos = new BigDecimal(v).multiply(UNIT_NANOS.get("s"));
        } else {
            Matcher part = PART.matcher(v);
            for (int at = 0; at < v.length(); at = part.end()) {
                if (!part.region(at, v.length()).lookingAt()) return -1;
                nanos = nanos.add(new BigDecimal(part.group(1)).multiply(UNIT_NANOS.get(part.group(2))));
            }
        }
        BigDecimal millis = nanos.movePointLeft(6).setScale(0, RoundingMode.CEILING);
        return millis.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE : millis.longValueExact();
    }

    private static final long[] POW10 = {
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000
    };

    /**
     * The same reading in exact long arithmetic for what providers send on every answer
     * ({@code 1ms}, {@code 0s}, {@code 6m0s}, {@code 1.5s}): the regex and BigDecimal way was
     * about 170 ns and 720 bytes per header on the request path. Returns -1 for anything it does
     * not take on (more than 9 digits on either side of the point, a fraction of a nanosecond,
     * an overflow, or no duration at all), which the general reading then decides.
     */
    private static long fastMillis(String v) {
        int n = v.length();
        long nanos = 0;
        int i = 0;
        while (i < n) {
            int start = i;
            long whole = 0;
            while (i < n && isDigit(v.charAt(i))) whole = whole * 10 + (v.charAt(i++) - '0');
            int wholeDigits = i - start;
            long fraction = 0;
            int fractionDigits = 0;
            if (i < n && v.charAt(i) == '.') {
                i++;
                int from = i;
                while (i < n && isDigit(v.charAt(i))) fraction = fraction * 10 + (v.charAt(i++) - '0');
                fractionDigits = i - from;
            }
            if (wholeDigits + fractionDigits == 0 || wholeDigits > 9 || fractionDigits > 9) return -1;
            long unit;
            if (i == n) {
                if (start != 0) return -1; // a bare number is seconds only when it is the whole value
                unit = 1_000_000_000L;
            } else {
                char c = v.charAt(i++);
                boolean s = i < n && v.charAt(i) == 's';
                if (c == 'h') unit = 3_600_000_000_000L;
                else if (c == 'm' && s) {
                    unit = 1_000_000L;
                    i++;
                } else if (c == 'm') unit = 60_000_000_000L;
                else if (c == 's') unit = 1_000_000_000L;
                else if ((c == 'u' || c == '\u00b5' || c == '\u03bc') && s) {
                    unit = 1_000L;
                    i++;
                } else if (c == 'n' && s) {
                    unit = 1L;
                    i++;
                } else return -1;
            }
            if (unit % POW10[fractionDigits] != 0) return -1;
            try {
                nanos = Math.addExact(
                        nanos,
                        Math.addExact(Math.multiplyExact(whole, unit), fraction * (unit / POW10[fractionDigits])));
            } catch (ArithmeticException e) {
                return -1;
            }
        }
        return nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
