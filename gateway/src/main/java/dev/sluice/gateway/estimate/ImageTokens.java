package dev.sluice.gateway.estimate;

import java.util.Locale;

/**
 * What one generated image stands for in tokens. gpt-image-1 bills an image as output tokens:
 * at high quality 4,160 for 1024×1024, 6,240 for 1024×1536 and 6,208 for 1536×1024; medium is
 * about a quarter of that, low about a fifteenth. Models priced per image (dall-e) are charged
 * the same stand-in, so a tier's token windows bound images as they bound text. Other sizes
 * scale with their pixels; an unknown or {@code auto} size or quality takes the dearest.
 */
final class ImageTokens {
    private static final long HIGH_1024 = 4160;
    private static final long LARGEST_PIXELS = 1536L * 1024;

    private ImageTokens() {}

    static long perImage(String size, String quality) {
        long pixels = pixels(size);
        long high = (HIGH_1024 * pixels + 1024L * 1024 - 1) / (1024L * 1024);
        String q = quality == null ? "auto" : quality.toLowerCase(Locale.ROOT);
        return switch (q) {
            case "low" -> Math.max(1, high * 272 / HIGH_1024);
            case "medium", "standard" -> Math.max(1, high * 1056 / HIGH_1024);
            default -> high; // high, hd, auto, or a quality this gateway does not know
        };
    }

    /** {@code WIDTHxHEIGHT}, bounded to sizes a provider generates; anything else is the largest. */
    private static long pixels(String size) {
        if (size == null) return LARGEST_PIXELS;
        String[] wh = size.toLowerCase(Locale.ROOT).split("x", -1);
        if (wh.length != 2) return LARGEST_PIXELS;
        try {
            long w = Long.parseLong(wh[0]);
            long h = Long.parseLong(wh[1]);
            if (w < 1 || h < 1 || w > 8192 || h > 8192) return LARGEST_PIXELS;
            return Math.max(w * h, 256L * 256);
        } catch (NumberFormatException e) {
            return LARGEST_PIXELS;
        }
    }
}
