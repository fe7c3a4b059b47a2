package dev.sluice.gateway.store;

/** The shared store did not answer in time and nothing local can stand in for it. */
public final class StoreUnavailableException extends RuntimeException {
    public StoreUnavailableException(String message) {
        super(message, null, false, false); // expected under an outage: no stack trace to fill
    }
}
