package dev.sluice.gateway.dispatch;

/** The door (or an expired deadline) says busy: answered at once with 503 gateway_busy. */
public final class GatewayBusyException extends RuntimeException {
    private final int position;
    private final long estimatedWaitMs;
    private final long retryAfterMs;

    public GatewayBusyException(String message, int position, long estimatedWaitMs, long retryAfterMs) {
        super(message, null, false, false); // an answer, not a fault: no stack trace
        this.position = position;
        this.estimatedWaitMs = estimatedWaitMs;
        this.retryAfterMs = retryAfterMs;
    }

    public int position() {
        return position;
    }

    public long estimatedWaitMs() {
        return estimatedWaitMs;
    }

    public long retryAfterMs() {
        return retryAfterMs;
    }
}
