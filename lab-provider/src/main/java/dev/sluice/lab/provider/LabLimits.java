package dev.sluice.lab.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The limits of the simulated provider: what a real provider's tier allows ({@link #DEFAULTS}:
 * 1,500 requests and 300,000 tokens a minute, 200 in flight, calls of about 2 s).
 *
 * @param requestsPerMinute     requests admitted in any rolling {@code window}
 * @param tokensPerMinute       tokens (prompt + requested max output) admitted in any rolling {@code window}
 * @param maxInFlight           calls running at once; one more is refused with 503
 * @param pricePerMillionTokens USD per million billed tokens (prompt and completion alike)
 * @param latency               how long a call takes, start to last token
 * @param latencyJitter         relative jitter on the latency, 0.1 = ±10 %
 * @param window                the "minute": 60 s unless a lab scenario scales time
 * @param completionTokens      what the model wants to write when the request does not cap it lower
 * @param inputTokensPerMinute  prompt tokens admitted in any rolling {@code window}; 0 = no such limit
 * @param outputTokensPerMinute output tokens in any rolling {@code window}, reserved from max tokens at
 *                              admission and settled to what was written (Anthropic's OTPM); 0 = no such limit
 */
public record LabLimits(
        int requestsPerMinute,
        long tokensPerMinute,
        int maxInFlight,
        double pricePerMillionTokens,
        Duration latency,
        double latencyJitter,
        Duration window,
        int completionTokens,
        long inputTokensPerMinute,
        long outputTokensPerMinute) {

    /** One combined token limit and no input/output split: what OpenAI enforces. */
    public static final LabLimits DEFAULTS =
            new LabLimits(1500, 300_000, 200, 3.0, Duration.ofSeconds(2), 0.1, Duration.ofSeconds(60), 200, 0, 0);

    public LabLimits {
        Objects.requireNonNull(latency, "latency must be set");
        Objects.requireNonNull(window, "window must be set");
        if (requestsPerMinute < 1) {
            throw new IllegalArgumentException("requestsPerMinute must be at least 1, was " + requestsPerMinute);
        }
        if (inputTokensPerMinute < 0) {
            throw new IllegalArgumentException(
                    "inputTokensPerMinute must be 0 (none) or more, was " + inputTokensPerMinute);
        }
        if (outputTokensPerMinute < 0) {
            throw new IllegalArgumentException(
                    "outputTokensPerMinute must be 0 (none) or more, was " + outputTokensPerMinute);
        }
        // The combined limit may be dropped only where the split limits replace it (Anthropic's ITPM/OTPM).
        boolean split = inputTokensPerMinute > 0 || outputTokensPerMinute > 0;
        if (tokensPerMinute < (split ? 0 : 1)) {
            throw new IllegalArgumentException("tokensPerMinute must be at least 1"
                    + (split ? " or 0 (none)" : " unless input or output tokens per minute are set")
                    + ", was " + tokensPerMinute);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
        }
        if (!(pricePerMillionTokens >= 0) || Double.isInfinite(pricePerMillionTokens)) {
            throw new IllegalArgumentException(
                    "pricePerMillionTokens must be a finite number >= 0, was " + pricePerMillionTokens);
        }
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, was " + latency);
        }
        if (!(latencyJitter >= 0 && latencyJitter < 1)) {
            throw new IllegalArgumentException("latencyJitter must be in [0, 1), was " + latencyJitter);
        }
        // Below a millisecond the rolling windows (kept in ms) would never hold anything.
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("window must be at least 1ms, was " + window);
        }
        if (completionTokens < 1) {
            throw new IllegalArgumentException("completionTokens must be at least 1, was " + completionTokens);
        }
    }

    public long windowMillis() {
        return window.toMillis();
    }

    public LabLimits withRequestsPerMinute(int v) {
        return with(c -> c.requestsPerMinute = v);
    }

    public LabLimits withTokensPerMinute(long v) {
        return with(c -> c.tokensPerMinute = v);
    }

    public LabLimits withMaxInFlight(int v) {
        return with(c -> c.maxInFlight = v);
    }

    public LabLimits withPricePerMillionTokens(double v) {
        return with(c -> c.pricePerMillionTokens = v);
    }

    public LabLimits withLatency(Duration v) {
        return with(c -> c.latency = v);
    }

    public LabLimits withLatencyJitter(double v) {
        return with(c -> c.latencyJitter = v);
    }

    public LabLimits withWindow(Duration v) {
        return with(c -> c.window = v);
    }

    public LabLimits withCompletionTokens(int v) {
        return with(c -> c.completionTokens = v);
    }

    public LabLimits withInputTokensPerMinute(long v) {
        return with(c -> c.inputTokensPerMinute = v);
    }

    public LabLimits withOutputTokensPerMinute(long v) {
        return with(c -> c.outputTokensPerMinute = v);
    }

    /** These limits with what {@code change} sets on a copy of them, checked again as any new limits are. */
    private LabLimits with(Consumer<Copy> change) {
        Copy c = new Copy();
        change.accept(c);
        return c.build();
    }

    /** These limits' fields, to change before {@link #build} makes limits of them again. */
    private final class Copy {
        int requestsPerMinute = requestsPerMinute();
        long tokensPerMinute = tokensPerMinute();
        int maxInFlight = maxInFlight();
        double pricePerMillionTokens = pricePerMillionTokens();
        Duration latency = latency();
        double latencyJitter = latencyJitter();
        Duration window = window();
        int completionTokens = completionTokens();
        long inputTokensPerMinute = inputTokensPerMinute();
        long outputTokensPerMinute = outputTokensPerMinute();

        LabLimits build() {
            return new LabLimits(
                    requestsPerMinute,
                    tokensPerMinute,
                    maxInFlight,
                    pricePerMillionTokens,
                    latency,
                    latencyJitter,
                    window,
                    completionTokens,
                    inputTokensPerMinute,
                    outputTokensPerMinute);
        }
    }
}
