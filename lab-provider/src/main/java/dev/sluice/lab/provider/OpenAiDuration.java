package dev.sluice.lab.provider;

/**
 * Formats durations the way OpenAI writes {@code x-ratelimit-reset-*} (Go's duration syntax):
 * {@code 12ms}, {@code 1s}, {@code 1.5s}, {@code 6m0s}, {@code 1h2m3.5s}. SDKs parse exactly this shape.
 */
public final class OpenAiDuration {

    private OpenAiDuration() {
    }

    public static String format(long millis) {
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = (millis / 60_000) % 60;
        long seconds = (millis / 1000) % 60;
        long fraction = millis % 1000;
        StringBuilder out = new StringBuilder();
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        out.append(seconds);
        if (fraction > 0) {
            String digits = String.format("%03d", fraction);
            out.append('.').append(digits.replaceAll("0+$", ""));
        }
        return out.append('s').toString();
    }
}
