package dev.sluice.gateway.shadow;

import dev.sluice.gateway.config.SluiceConfig;

/**
 * The draft tiers document in shadow, as this replica knows it: every live request is also decided
 * against it, without effect on the request (issue 28). Shared by replicas through the draft store;
 * {@link #NONE} when no draft is in shadow.
 */
public interface ShadowTiers {
    /** The draft in shadow now, parsed; null when shadow is off. */
    SluiceConfig draft();

    /** Identifies the draft in shadow (its version): shadow windows of an earlier draft are not reused. */
    long draftVersion();

    /** When shadow was turned on for this draft, epoch ms (0 when off). */
    long sinceMs();

    ShadowTiers NONE = new ShadowTiers() {
        @Override
        public SluiceConfig draft() {
            return null;
        }

        @Override
        public long draftVersion() {
            return 0;
        }

        @Override
        public long sinceMs() {
            return 0;
        }
    };
}
