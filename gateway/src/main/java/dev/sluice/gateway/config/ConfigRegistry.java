package dev.sluice.gateway.config;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The configuration in force on this replica. Readers take {@link #current()} once per
 * request and use that snapshot throughout, so a reload never changes a request half way.
 */
public final class ConfigRegistry {
    private final AtomicReference<SluiceConfig> current;

    public ConfigRegistry(SluiceConfig initial) {
        this.current = new AtomicReference<>(Objects.requireNonNull(initial));
    }

    public SluiceConfig current() {
        return current.get();
    }

    public void replace(SluiceConfig next) {
        current.set(Objects.requireNonNull(next));
    }
}
