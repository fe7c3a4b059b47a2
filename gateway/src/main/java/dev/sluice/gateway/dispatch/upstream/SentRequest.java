package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.dispatch.budget.BudgetLimits;
import java.time.Clock;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/**
 * One attempt's request to the provider, noting when its body was handed to the connection: the
 * HTTP client reads the body only once it has a connection and has written the headers, so its
 * end is when the provider can start to count the call. Between the lease and that moment lie the
 * hop to the request's own event loop, the connection and the write, which under a burst (hundreds
 * of calls admitted in the same second on two cores) took seconds, far past the count delay.
 */
public final class SentRequest extends ServerHttpRequestDecorator {
    private final Clock clock;
    private final Runnable onSent;
    private volatile long sentAtMs = Long.MIN_VALUE;

    /** {@code onSent} runs once the body has been handed over (the door's slots count the provider's time from then). */
    public SentRequest(ServerHttpRequest delegate, Clock clock, Runnable onSent) {
        super(delegate);
        this.clock = clock;
        this.onSent = onSent;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return super.getBody().doOnComplete(() -> {
            sentAtMs = clock.millis();
            onSent.run();
        });
    }

    /** When the whole body had been handed to the connection, on this gateway's clock; {@link Long#MIN_VALUE} if not yet. */
    public long sentAtMs() {
        return sentAtMs;
    }

    /**
     * How much later than its admission plus the count delay the provider may have counted a call
     * (every time on this gateway's clock; {@link Long#MIN_VALUE}: unknown), so that its charge
     * leaves the gateway's minute no sooner than the provider's:
     * <ul>
     *   <li>the time from the lease's hand-over to the sending: the count delay is the request's
     *       travel, and it starts when the gateway sends, not when the budget admitted;</li>
     *   <li>where the answer proves nothing ({@code proved} false: a whole answer without the
     *       provider's processing time, or no answer), the travel is not trusted to the count
     *       delay alone: it is taken as the longest count delay ({@link BudgetLimits#MAX_COUNT_DELAY_MS},
     *       measured above 250 ms between sending and a provider's count on a loaded machine), and
     *       never later than the headers, which came after the count.</li>
     * </ul>
     * A proof, where there is one, still moves the charge on its own ({@link UpstreamAnswer#countedBy}).
     * Never negative; 0 when the call was never sent.
     */
    public static long countsLaterByMs(
            long handedOverAtMs, long sentAtMs, long headersAtMs, boolean proved, long countDelayMs) {
        if (sentAtMs == Long.MIN_VALUE) return 0;
        long late = handedOverAtMs == Long.MIN_VALUE ? 0 : Math.max(0, sentAtMs - handedOverAtMs);
        if (proved) return late;
        long travel = BudgetLimits.MAX_COUNT_DELAY_MS;
        if (headersAtMs != Long.MIN_VALUE) travel = Math.min(travel, Math.max(0, headersAtMs - sentAtMs));
        return late + Math.max(0, travel - Math.max(0, countDelayMs));
    }
}
