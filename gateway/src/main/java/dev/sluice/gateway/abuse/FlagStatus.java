package dev.sluice.gateway.abuse;

import java.util.Locale;

/** A flag's state: open until reviewed; dismissed (a false alarm) or confirmed (action taken). */
public enum FlagStatus {
    OPEN,
    DISMISSED,
    CONFIRMED;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static FlagStatus of(String wire) {
        for (FlagStatus s : values()) if (s.wire().equals(wire)) return s;
        return null;
    }
}
