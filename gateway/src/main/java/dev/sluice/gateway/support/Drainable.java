package dev.sluice.gateway.support;

import java.time.Duration;

/**
 * Work held back to be sent later in batches, which shutdown must send while the store still
 * answers: after {@link #flush}, what comes goes at once, since no later send will come for it.
 * A context stopped and started again (Spring's test contexts are) batches again after
 * {@link #resume}.
 */
public interface Drainable {
    /** Sends all that waits, waiting at most {@code wait}; from now on work goes at once. */
    void flush(Duration wait);

    /** Batches again (a context started after a stop). */
    void resume();
}
