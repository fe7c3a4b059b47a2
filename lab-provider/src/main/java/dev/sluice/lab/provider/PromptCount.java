package dev.sluice.lab.provider;

import java.util.Locale;

/**
 * How the lab provider counts the prompt it limits and bills. Real providers do not count the way
 * Sluice's estimator does (other tokenizers, their own per-message framing), so the lab can play one
 * that counts more or less than the estimate. {@link #DEFAULT} is the estimator's own count.
 *
 * @param method           {@code BPE}: the estimator's encodings; {@code CHARS}: characters / {@code charsPerToken}
 * @param charsPerToken    characters per token for {@code CHARS} (4.0 is the common rule of thumb for English)
 * @param factor           multiplies the count of every text (1.15: a tokenizer that finds 15 % more tokens)
 * @param tokensPerMessage framing added per chat message (role and separators); OpenAI's is about 4
 */
public record PromptCount(Method method, double charsPerToken, double factor, int tokensPerMessage) {

    public enum Method {
        BPE,
        CHARS
    }

    public static final PromptCount DEFAULT =
            new PromptCount(Method.BPE, 4.0, 1.0, PromptTokenCounter.TOKENS_PER_MESSAGE);

    public PromptCount {
        if (method == null) {
            throw new IllegalArgumentException("prompt count method must be bpe or chars");
        }
        if (!(charsPerToken >= 0.5 && charsPerToken <= 100)) {
            throw new IllegalArgumentException("chars per token must be in [0.5, 100], was " + charsPerToken);
        }
        // Beyond ±5x this is no longer a tokenizer that differs, it is a broken one.
        if (!(factor >= 0.2 && factor <= 5)) {
            throw new IllegalArgumentException("count factor must be in [0.2, 5], was " + factor);
        }
        if (tokensPerMessage < 0 || tokensPerMessage > 1000) {
            throw new IllegalArgumentException("tokens per message must be in [0, 1000], was " + tokensPerMessage);
        }
    }

    /** {@code bpe} or {@code chars}, any case. */
    public static Method method(String name) {
        try {
            return Method.valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("prompt count is bpe or chars, was '" + name + "'");
        }
    }

    /**
     * Tokens of one text, unrounded: a prompt sums its texts and rounds up once, so a factor or a
     * characters-per-token rule is not rounded once per message.
     */
    double tokens(PromptTokenCounter bpe, String model, String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        double base =
                method == Method.BPE ? bpe.count(model, text) : text.codePointCount(0, text.length()) / charsPerToken;
        return base * factor;
    }

    /** The prompt's count, rounded up (a provider never counts a part of a token as nothing). */
    static long round(double tokens) {
        return (long) Math.ceil(tokens);
    }
}
