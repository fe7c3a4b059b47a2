package dev.sluice.gateway.dispatch.queue;

import java.util.Locale;

/** A request's class of service ({@code X-Sluice-Priority}): a person waiting, or a backfill. */
public enum JobClass {
    INTERACTIVE,
    BATCH;

    /** The header's value: absent means interactive; anything but the two names is refused. */
    public static JobClass parse(String header) {
        if (header == null || header.isBlank()) return INTERACTIVE;
        return switch (header.trim().toLowerCase(Locale.ROOT)) {
            case "interactive" -> INTERACTIVE;
            case "batch" -> BATCH;
            default ->
                throw new IllegalArgumentException(
                        "X-Sluice-Priority must be interactive or batch, was '" + header + "'");
        };
    }
}
