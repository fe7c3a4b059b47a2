package dev.sluice.gateway.dispatch;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads OpenAI's durations ({@code 12ms}, {@code 1.5s}, {@code 6m0s}, {@code 1h2m3s}) and plain seconds. */
public final class OpenAiDurations {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|h|m|s)");

    private OpenAiDurations() {
    }

    /** Milliseconds, or -1 when the value is missing or not a duration. */
    public static long parseMs(String value) {
        if (value == null || value.isBlank()) return -1;
        String v = value.trim();
        if (v.matches("\\d+(\\.\\d+)?")) return (long) Math.ceil(Double.parseDouble(v) * 1000); // Retry-After seconds
        Matcher m = PART.matcher(v);
        double ms = 0;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) return -1;
            double n = Double.parseDouble(m.group(1));
            ms += switch (m.group(2)) {
                case "h" -> n * 3_600_000;
                case "m" -> n * 60_000;
                case "s" -> n * 1_000;
                default -> n;
            };
            end = m.end();
        }
        return end == v.length() && end > 0 ? (long) Math.ceil(ms) : -1;
    }
}
