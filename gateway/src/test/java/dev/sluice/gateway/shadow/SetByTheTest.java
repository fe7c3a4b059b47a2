package dev.sluice.gateway.shadow;

import dev.sluice.gateway.config.SluiceConfig;
import java.util.concurrent.atomic.AtomicReference;

/** A {@link ShadowTiers} a test puts its draft in shadow with by hand (null: shadow off), as version {@code version}. */
record SetByTheTest(AtomicReference<SluiceConfig> set, long version) implements ShadowTiers {
    @Override
    public SluiceConfig draft() {
        return set.get();
    }

    @Override
    public long draftVersion() {
        return version;
    }

    @Override
    public long sinceMs() {
        return set.get() == null ? 0 : 1;
    }
}
