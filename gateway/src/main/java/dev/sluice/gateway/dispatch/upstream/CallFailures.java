package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.api.RequestBodyTooLarge;
import dev.sluice.gateway.support.Causes;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.springframework.web.server.ResponseStatusException;

/** What kind of failure ended a call before its answer: each kind is settled and told differently. */
public final class CallFailures {
    private CallFailures() {}

    /** No answer in time (the concurrency limit's evidence), as opposed to no answer at all (refused, reset). */
    public static boolean isTimeout(Throwable e) {
        return e instanceof TimeoutException
                || e instanceof ResponseStatusException r && r.getStatusCode().value() == 504;
    }

    /**
     * No connection was made: refused, or the connect timed out (Netty's exceptions for both are
     * {@link ConnectException}s). Nothing reached the provider. A reset or a closed
     * connection is not this: the request may have arrived.
     */
    public static boolean neverConnected(Throwable e) {
        return Causes.any(e, t -> t instanceof ConnectException);
    }

    /**
     * The client's body passed its operation's limit as it streamed and the surface cut it: the
     * provider did nothing wrong (no failure counted, no other provider tried).
     */
    public static boolean cutByTheSurface(Throwable e) {
        return Causes.any(e, t -> t instanceof RequestBodyTooLarge);
    }
}
