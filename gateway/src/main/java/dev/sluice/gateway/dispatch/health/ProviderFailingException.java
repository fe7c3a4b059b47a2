package dev.sluice.gateway.dispatch.health;

/**
 * The provider whose line a request waited in started failing (its circuit opened): the
 * request was never sent, and its caller routes it again.
 */
public final class ProviderFailingException extends RuntimeException {
    public ProviderFailingException(String provider) {
        super("provider " + provider + " is failing", null, false, false);
    }
}
