package dev.sluice.gateway.abuse;

import java.util.Locale;

/** What the request path did with a request, as counted per tenant and minute for the usage series. */
public enum Stage {
    PASSED, DOWNGRADED, DELAYED, REJECTED, BUSY;

    private final String wire = name().toLowerCase(Locale.ROOT);

    /** The name in the API and in stores: {@code passed}, {@code downgraded}, … */
    public String wire() {
        return wire;
    }

    /** The stage of this wire name, or null for any other string (the request path never fails on it). */
    public static Stage of(String wire) {
        if (wire == null) return null;
        for (Stage s : values()) if (s.wire.equals(wire)) return s;
        return null;
    }
}
