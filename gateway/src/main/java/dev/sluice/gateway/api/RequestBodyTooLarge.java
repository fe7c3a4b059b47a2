package dev.sluice.gateway.api;

/**
 * A request body that passed its operation's limit while it streamed (a chunked upload): the
 * surface answers 413 request_too_large when it comes back. In api/ so that a stage between can
 * tell it from a failure of the provider: the provider did nothing wrong.
 */
public final class RequestBodyTooLarge extends RuntimeException {
    private final long limit;

    public RequestBodyTooLarge(long limit) {
        super("request body over " + limit + " bytes", null, false, false);
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}
