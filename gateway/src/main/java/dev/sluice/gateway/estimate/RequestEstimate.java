package dev.sluice.gateway.estimate;

import dev.sluice.gateway.api.RequestAttribute;
import java.util.Objects;

/**
 * What a request may cost before it runs: the prompt as the tokenizer counts it and the output
 * it may produce. The quota is charged {@link #totalTokens()} up front and corrected later from
 * the real usage.
 *
 * @param model               the requested model; null only for {@link Endpoint#OTHER}
 * @param clientAskedForUsage the client set {@code stream_options.include_usage: true} itself, so
 *                            the usage chunk must reach it
 * @param uncappedField       the body's output-limit field when the request set none and the
 *                            estimate reserved the tier's default in its place: the gateway writes
 *                            that default into the forwarded body under this name, so the provider
 *                            cannot write more than was reserved; null otherwise
 */
public record RequestEstimate(
        Endpoint endpoint,
        String model,
        long promptTokens,
        long maxOutputTokens,
        boolean stream,
        boolean clientAskedForUsage,
        String uncappedField) {
    /** Where the estimate stage leaves it for the stages after it. */
    public static final RequestAttribute<RequestEstimate> ATTRIBUTE = new RequestAttribute<>("sluice.estimate");

    public RequestEstimate {
        Objects.requireNonNull(endpoint, "endpoint");
        if (promptTokens < 0 || maxOutputTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    public RequestEstimate(
            Endpoint endpoint,
            String model,
            long promptTokens,
            long maxOutputTokens,
            boolean stream,
            boolean clientAskedForUsage) {
        this(endpoint, model, promptTokens, maxOutputTokens, stream, clientAskedForUsage, null);
    }

    static RequestEstimate other() {
        return new RequestEstimate(Endpoint.OTHER, null, 0, 0, false, false);
    }

    /** The same request with another estimate of its cost (a batch priced from its input file). */
    public RequestEstimate withCost(String model, long promptTokens, long maxOutputTokens) {
        return new RequestEstimate(
                endpoint, model, promptTokens, maxOutputTokens, stream, clientAskedForUsage, uncappedField);
    }

    /**
     * Whether the gateway must ask for the usage itself: a streamed chat/completions request whose
     * client did not. Its body then goes through {@link RequestRewriter#withIncludeUsage} and its
     * stream through a tap that strips the usage chunk again. Responses streams always end with
     * their usage and take no {@code include_usage}; other requests are not streams.
     */
    public boolean gatewayMustRequestUsage() {
        return stream && !clientAskedForUsage && (endpoint == Endpoint.CHAT || endpoint == Endpoint.COMPLETIONS);
    }

    /** Saturates rather than overflows: an absurd max_tokens must not turn into a negative charge. */
    public long totalTokens() {
        long total = promptTokens + maxOutputTokens;
        return total < 0 ? Long.MAX_VALUE : total;
    }
}
