package dev.sluice.lab.scenario;

import dev.sluice.lab.provider.Admission;

/** What refused a page first: one of the provider's limits, our limiter, the gateway's door, or a timeout. */
public enum FailureLimit {
    REQUESTS("requests"),
    TOKENS("tokens"),
    IN_FLIGHT("in_flight"),
    LIMITER("limiter"),
    GATEWAY_BUSY("gateway_busy"),
    TIMEOUT("timeout");

    private final String wire;

    FailureLimit(String wire) {
        this.wire = wire;
    }

    /** As written in the report. */
    public String wire() {
        return wire;
    }

    /** The provider limit behind a refusal. */
    public static FailureLimit of(Admission.Reason reason) {
        return switch (reason) {
            case OVERLOADED -> IN_FLIGHT;
            case REQUESTS_PER_MINUTE -> REQUESTS;
            case TOKENS_PER_MINUTE, INPUT_TOKENS_PER_MINUTE, OUTPUT_TOKENS_PER_MINUTE, REQUEST_TOO_LARGE -> TOKENS;
        };
    }
}
