package dev.sluice.lab.provider;

/**
 * One admitted call, held by the caller until it is completed or cancelled.
 * Identity matters: the simulator releases each call once, whatever the caller does twice.
 */
public final class LabCall {

    private final long id;
    private final long promptTokens;
    private final long reservedTokens;
    private final long completionTokens;
    private final boolean truncated;
    private final long latencyMillis;
    private final long admittedAtMillis;
    final long epoch;
    boolean released; // guarded by the simulator's lock
    /** Its place in the rolling windows, so the output reservation can be settled; guarded by the lock. */
    ProviderSimulator.Entry entry;

    LabCall(
            long id,
            long promptTokens,
            long reservedTokens,
            long completionTokens,
            boolean truncated,
            long latencyMillis,
            long admittedAtMillis,
            long epoch) {
        this.id = id;
        this.promptTokens = promptTokens;
        this.reservedTokens = reservedTokens;
        this.completionTokens = completionTokens;
        this.truncated = truncated;
        this.latencyMillis = latencyMillis;
        this.admittedAtMillis = admittedAtMillis;
        this.epoch = epoch;
    }

    public long id() {
        return id;
    }

    public long promptTokens() {
        return promptTokens;
    }

    /** Tokens counted against the TPM window at admission: prompt + requested (or default) max output. */
    public long reservedTokens() {
        return reservedTokens;
    }

    /** Tokens the model will write for this call. */
    public long completionTokens() {
        return completionTokens;
    }

    /** True when the request's max tokens cut the answer short: finish_reason "length". */
    public boolean truncated() {
        return truncated;
    }

    /** This call's latency, jitter applied. */
    public long latencyMillis() {
        return latencyMillis;
    }

    public long admittedAtMillis() {
        return admittedAtMillis;
    }

    @Override
    public String toString() {
        return "LabCall[id=" + id + ", prompt=" + promptTokens + ", completion=" + completionTokens + ", latencyMs="
                + latencyMillis + "]";
    }
}
