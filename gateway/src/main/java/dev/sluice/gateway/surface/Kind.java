package dev.sluice.gateway.surface;

/**
 * What an operation does to the provider account, which decides whether a tier's default opens
 * it (see {@code config/EndpointAccess}).
 */
public enum Kind {
    /** Its cost is estimated before the call and settled after it: the paths of {@code estimate/Endpoint}. */
    METERED,
    /** Spends nothing and changes nothing: a stored object, a list, a count. Free at the provider. */
    READ,
    /** Creates, updates or deletes an object without generating anything: free, or storage only. */
    CHANGE,
    /**
     * Spends the account in a way Sluice does not estimate (a run, a training job, a transcription
     * priced by audio minute, a container session): open only where the tier lists the family.
     */
    UNMETERED,
    /**
     * Mints a provider credential the tenant then uses directly, past every limit of Sluice's:
     * open only where the tier lists the family.
     */
    CREDENTIAL;

    /** Whether opening it gives away spend that Sluice neither estimates nor limits. */
    public boolean spendsUnmetered() {
        return this == UNMETERED || this == CREDENTIAL;
    }
}
