package dev.sluice.gateway.api;

import java.util.List;

/**
 * What the request path did with a request: the one list of its outcomes, read by the ladder
 * (its rungs), the {@code sluice.decisions} metric's stage tag (docs/metrics.md), the tenant's
 * usage series and the console's overview.
 */
public enum Stage {
    PASSED("passed"),
    DOWNGRADED("downgraded"),
    DELAYED("delayed"),
    REJECTED("rejected"),
    /** The dispatch door, or a line that could not serve in time: 503 gateway_busy. */
    BUSY("busy"),
    /** More tokens than a window (the tier's or the provider's) could ever admit: 400. */
    TOO_LARGE("too-large"),
    STORE_UNAVAILABLE("store-unavailable");

    /**
     * The stages a tenant's usage series counts per minute, in the order the stores write them
     * (a stored line lists its counts in this order, so it only ever grows at the end).
     */
    public static final List<Stage> SERIES = List.of(PASSED, DOWNGRADED, DELAYED, REJECTED, BUSY);

    private final String label;

    Stage(String label) {
        this.label = label;
    }

    /** The metric tag, the name in the API and in stores, and the word operators see. */
    public String label() {
        return label;
    }

    /** The stage of this label, or null for any other string (the request path never fails on it). */
    public static Stage of(String label) {
        if (label == null) return null;
        for (Stage s : values()) if (s.label.equals(label)) return s;
        return null;
    }
}
