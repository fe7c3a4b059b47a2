package dev.sluice.gateway.dispatch.queue;

/**
 * The gateway cannot send this request to the provider in time: answered at once with 503
 * gateway_busy, its place in line and the wait. The texts the tenant reads are here, one factory
 * per reason, so the dispatch loop only says which reason applies.
 */
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

    /** The door refused the job: the line is full, it can never fit, or it would wait past {@code maxWaitMs}. */
    public static GatewayBusyException refusedAtTheDoor(DoorDecision d, long maxWaitMs) {
        String why = switch (d.verdict()) {
            case QUEUE_FULL -> "The gateway's queue is full.";
            case TOO_LARGE -> "This request is larger than the provider admits in a minute.";
            default ->
                "The provider is busy: the estimated wait (" + d.estimatedWaitMs() + " ms) is longer than "
                        + "the door promises within X-Sluice-Max-Wait (" + maxWaitMs + " ms): "
                        + Door.longestPromisedMs(maxWaitMs)
                        + " ms, the estimate's margin kept.";
        };
        return new GatewayBusyException(why, d.position(), d.estimatedWaitMs(), d.retryAfterMs());
    }

    /** The door let the job in, but the line filled before it got there; {@code position} is its place in service order. */
    public static GatewayBusyException queueFull(int position) {
        return new GatewayBusyException("The gateway's queue is full.", position, -1, 1_000);
    }

    /** The queue was full and this tenant held the most of it: its last job made room for a tenant with less in line. */
    public static GatewayBusyException pushedOut(int position) {
        return new GatewayBusyException(
                "The gateway's queue is full and this tenant holds the most of it: its latest "
                        + "request made room for a tenant with less in line.",
                position,
                -1,
                1_000);
    }

    /**
     * Admitted a moment ago, as part of a burst, then its place went to a tenant owed an earlier
     * turn (see {@link Door#softForMs}): answered at once, before its caller has waited. It says
     * the wait it would have had behind that tenant, as the door says the wait it refuses.
     */
    public static GatewayBusyException gaveWay(int position, long waitMs, long maxWaitMs) {
        return pastThePromise(
                "this request's place went to tenants owed an earlier turn who asked at the same moment; behind them",
                position,
                waitMs,
                maxWaitMs);
    }

    /**
     * Admitted on the budget as this replica last saw it, then the next view of the store or of
     * the other replicas' lines showed that room taken by calls of the same moment: behind them
     * the wait is longer than the door promises ({@link Door#review}). Answered as soon as that
     * view came, before its caller has waited.
     */
    public static GatewayBusyException roomTakenElsewhere(int position, long waitMs, long maxWaitMs) {
        return pastThePromise(
                "the room this request was admitted to was taken by calls sent at the same moment (here or by other "
                        + "gateway replicas);",
                position,
                waitMs,
                maxWaitMs);
    }

    /** A wait longer than the door promises within {@code maxWaitMs}: retry when it is one it promises. */
    private static GatewayBusyException pastThePromise(String why, int position, long waitMs, long maxWaitMs) {
        return new GatewayBusyException(
                "The provider is busy: " + why + " the estimated wait (" + waitMs + " ms) is longer than the door "
                        + "promises within its X-Sluice-Max-Wait (" + maxWaitMs + " ms).",
                position,
                waitMs,
                Math.max(1, waitMs - Door.longestPromisedMs(maxWaitMs)));
    }

    /** The job's deadline passed while it waited in line. */
    public static GatewayBusyException waitedTooLong(long promisedMs) {
        return new GatewayBusyException(
                "The request waited its whole X-Sluice-Max-Wait in line" + promised(promisedMs) + ".", 0, -1, 1_000);
    }

    /** What the door had said, so a broken promise reads as one (and its error can be measured from outside). */
    private static String promised(long promisedMs) {
        return promisedMs < 0 ? "" : " (the door had estimated " + promisedMs + " ms)";
    }

    /**
     * Dead work told early: even the head of the line must wait {@code waitMs} for the budget,
     * longer than this job's {@code maxWaitMs}; asking again after the difference gets in.
     */
    public static GatewayBusyException cannotMakeIt(long maxWaitMs, long waitMs, int position, long promisedMs) {
        return new GatewayBusyException(
                "The provider is busy: this request cannot be sent within its "
                        + "X-Sluice-Max-Wait (" + maxWaitMs + " ms); the budget has room again in " + waitMs + " ms"
                        + promised(promisedMs) + ".",
                position,
                waitMs,
                Math.max(1, waitMs - maxWaitMs));
    }

    /** The replica is shutting down: another replica will serve the retry. */
    public static GatewayBusyException shuttingDown() {
        return new GatewayBusyException("This gateway replica is shutting down; retry the request.", 0, -1, 1_000);
    }

    /** A 503 from the provider asked to wait {@code waitMs}, past what is left of the caller's wait. */
    public static GatewayBusyException overloadedPastMaxWait(long waitMs, long retryAfterMs) {
        return new GatewayBusyException(
                "The provider is overloaded and asked to wait " + waitMs + " ms, past this request's "
                        + "X-Sluice-Max-Wait.",
                0,
                -1,
                retryAfterMs);
    }

    /** Every line this request was sent to belonged to a provider that started failing. */
    public static GatewayBusyException providersFailing(long retryAfterMs) {
        return new GatewayBusyException(
                "The providers for this model are failing; retry the request.",
                0,
                -1,
                Math.max(1_000, Math.min(retryAfterMs, 10_000)));
    }

    /** The provider pushed back on every attempt. */
    public static GatewayBusyException pushedBackEveryTime(int attempts, long retryAfterMs) {
        return new GatewayBusyException(
                "The provider is pushing back; this request was tried " + attempts + " times.", 0, -1, retryAfterMs);
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
