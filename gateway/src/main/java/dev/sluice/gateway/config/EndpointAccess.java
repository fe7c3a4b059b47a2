package dev.sluice.gateway.config;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which of the tenant API's operations a tier opens: its {@code endpoints:} list in tiers.yaml.
 * The rule, kept to one line: a family the tier <em>lists</em> is open whole; a tier that lists
 * nothing gets {@link Family#DEFAULT}, and of those families only the operations that either
 * Sluice meters or that spend nothing at the provider. The others (an audio transcription, a
 * realtime client secret) spend the provider account in a way Sluice does not estimate, or hand
 * the tenant a credential it then uses directly; an operator gives that away only by writing the
 * family's name. Models are always open (the gateway answers them).
 *
 * @param families the families open at all
 * @param listed   true when the tier listed them (every operation of each is open), false for
 *                 the default (only the metered and free ones)
 */
public record EndpointAccess(Set<Family> families, boolean listed) {
    public static final EndpointAccess DEFAULT = new EndpointAccess(Family.DEFAULT, false);

    public EndpointAccess {
        families = Set.copyOf(Objects.requireNonNull(families, "families"));
    }

    /** A tier's own list: every operation of each family open. */
    public static EndpointAccess listed(Set<Family> families) {
        return new EndpointAccess(families.isEmpty() ? Set.of() : EnumSet.copyOf(families), true);
    }

    /**
     * @param spendsUnmetered the operation spends the account unestimated or mints a credential
     */
    public boolean opens(Family family, boolean spendsUnmetered) {
        if (family.answeredByGateway()) return true;
        return families.contains(family) && (listed || !spendsUnmetered);
    }
}
