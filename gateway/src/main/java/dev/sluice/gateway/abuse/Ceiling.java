package dev.sluice.gateway.abuse;

import java.util.Objects;

/**
 * How hard a tenant pressed on its ceiling in one minute, in the window that pressed hardest:
 * what the sample keeps so a flag's evidence shows why a minute counted.
 *
 * @param window        the window measured (minute, hour, day, …)
 * @param fill          its mean fill over the minute's quota answers, as a share of its cap
 * @param peak          its highest fill after an answer
 * @param roomTokens    the least room it had left after an admission, in tokens; -1 when nothing was admitted
 * @param typicalTokens the tenant's typical request in the minute (mean estimate of the requests that asked)
 * @param refused       requests it refused (429)
 * @param held          requests it held (the ladder's delay)
 * @param reason        why the minute counts: {@code refused}, {@code held}, {@code room} (less room than a
 *                      typical request) or {@code fill} (only the fill: compare {@code pressure} with the threshold)
 * @param pressure      the number the detector compares with the threshold: 1 when refused, held or out of
 *                      room, otherwise the higher of {@code fill} and the window's fill as the minute ended
 */
public record Ceiling(
        String window,
        double fill,
        double peak,
        long roomTokens,
        long typicalTokens,
        long refused,
        long held,
        String reason,
        double pressure) {
    public static final String REFUSED = "refused";
    public static final String HELD = "held";
    public static final String ROOM = "room";
    public static final String FILL = "fill";

    public Ceiling {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(reason, "reason");
        if (!(fill >= 0)
                || !(peak >= 0)
                || !(pressure >= 0)
                || typicalTokens < 0
                || refused < 0
                || held < 0
                || roomTokens < -1) {
            throw new IllegalArgumentException("a ceiling measure must not be negative");
        }
    }
}
