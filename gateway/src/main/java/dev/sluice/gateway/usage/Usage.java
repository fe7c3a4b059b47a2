package dev.sluice.gateway.usage;

/** The tokens a provider reports a request really used. */
public record Usage(long promptTokens, long completionTokens) {

    public Usage {
        if (promptTokens < 0 || completionTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    public long totalTokens() {
        long total = promptTokens + completionTokens;
        return total < 0 ? Long.MAX_VALUE : total;
    }
}
