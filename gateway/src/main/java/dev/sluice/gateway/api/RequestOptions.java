package dev.sluice.gateway.api;

import java.util.Locale;
import org.springframework.http.HttpHeaders;

/**
 * The optional X-Sluice-* request headers, read once and validated before anything is charged.
 *
 * @param batch       {@code X-Sluice-Priority: batch} (default interactive): waits behind people
 * @param maxWaitMs   {@code X-Sluice-Max-Wait}: how long the caller will queue (default 60 s, at most 10 min)
 * @param noDowngrade {@code X-Sluice-No-Downgrade: true}: keep the model, where the tier allows it
 */
public record RequestOptions(boolean batch, long maxWaitMs, boolean noDowngrade) {
    public static final String PRIORITY = "X-Sluice-Priority";
    public static final String MAX_WAIT = "X-Sluice-Max-Wait";
    public static final String NO_DOWNGRADE = "X-Sluice-No-Downgrade";
    public static final long DEFAULT_MAX_WAIT_MS = 60_000;
    static final long LONGEST_WAIT_MS = 600_000;

    /** A problem with one header: its name and what is wrong. */
    public static final class Invalid extends RuntimeException {
        private final String header;

        Invalid(String header, String message) {
            super(message, null, false, false);
            this.header = header;
        }

        public String header() {
            return header;
        }
    }

    public static RequestOptions from(HttpHeaders h) {
        String priority = h.getFirst(PRIORITY);
        boolean batch = false;
        if (priority != null && !priority.isBlank()) {
            switch (priority.trim().toLowerCase(Locale.ROOT)) {
                case "interactive" -> batch = false;
                case "batch" -> batch = true;
                default ->
                    throw new Invalid(PRIORITY, PRIORITY + " must be interactive or batch, got '" + priority + "'.");
            }
        }
        long maxWait = DEFAULT_MAX_WAIT_MS;
        String wait = h.getFirst(MAX_WAIT);
        if (wait != null && !wait.isBlank()) {
            try {
                maxWait = Long.parseLong(wait.trim());
            } catch (NumberFormatException e) {
                maxWait = -1;
            }
            if (maxWait < 0 || maxWait > LONGEST_WAIT_MS) {
                throw new Invalid(
                        MAX_WAIT,
                        MAX_WAIT + " must be a whole number of milliseconds from 0 to " + LONGEST_WAIT_MS + ", got '"
                                + wait + "'.");
            }
        }
        String nd = h.getFirst(NO_DOWNGRADE);
        boolean noDowngrade = false;
        if (nd != null && !nd.isBlank()) {
            if (nd.trim().equalsIgnoreCase("true")) noDowngrade = true;
            else if (!nd.trim().equalsIgnoreCase("false")) {
                throw new Invalid(NO_DOWNGRADE, NO_DOWNGRADE + " must be true or false, got '" + nd + "'.");
            }
        }
        return new RequestOptions(batch, maxWait, noDowngrade);
    }
}
