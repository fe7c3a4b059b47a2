package dev.sluice.gateway.config;

/** A provider's published limits for one model (or for every model, under "*"). */
public record ModelLimits(long requestsPerMinute, long tokensPerMinute, int maxInFlight, double pricePerMillionTokens) {
    public ModelLimits {
        if (requestsPerMinute <= 0 || tokensPerMinute <= 0 || maxInFlight <= 0) {
            throw new IllegalArgumentException("provider limits must be positive");
        }
        if (pricePerMillionTokens < 0) throw new IllegalArgumentException("price must not be negative");
    }
}
