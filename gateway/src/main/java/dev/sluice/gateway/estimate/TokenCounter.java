package dev.sluice.gateway.estimate;

import com.knuddels.jtokkit.api.Encoding;

/**
 * Counts the texts of one request with a bounded amount of tokenizing, because estimation runs on
 * the event loop. The first {@link #EXACT_CHARS} characters of a request are tokenized exactly,
 * which covers nearly every request. Past that, a long text is tokenized in evenly spread windows
 * and extrapolated by length, and once the budget is spent, the remaining texts are extrapolated
 * from the tokens per character seen so far in the request. So a huge prompt costs about as much
 * as a 16 K-character one. It is typically within a few percent (windows cut words, so it errs
 * high), and the real usage corrects it. Not thread-safe: one per estimate.
 */
final class TokenCounter {
    static final int EXACT_CHARS = 16 * 1024;
    /** Below this much budget a sample says too little; the request's own ratio is used instead. */
    static final int MIN_SAMPLE_CHARS = 4 * 1024;

    static final int SAMPLE_WINDOWS = 16;

    private final Encoding encoding;
    private long budget = EXACT_CHARS;
    private long seenChars;
    private long seenTokens;

    TokenCounter(Encoding encoding) {
        this.encoding = encoding;
    }

    /** Ordinary encoding: "<|endoftext|>" in a user's text is text, not a control token. */
    long count(String text) {
        int length = text.length();
        if (length == 0) return 0;
        if (length <= budget) {
            budget -= length;
            return observe(length, encoding.countTokensOrdinary(text));
        }
        if (budget >= MIN_SAMPLE_CHARS) {
            long sampled = sample(text, (int) budget);
            budget = 0;
            return sampled;
        }
        return extrapolate(length, seenTokens, Math.max(seenChars, 1));
    }

    /** Tokens of {@code sampleChars} characters taken in windows spread from start to end. */
    private long sample(String text, int sampleChars) {
        int length = text.length();
        int window = sampleChars / SAMPLE_WINDOWS;
        long chars = 0;
        long tokens = 0;
        for (int k = 0; k < SAMPLE_WINDOWS; k++) {
            int start = (int) ((long) (length - window) * k / (SAMPLE_WINDOWS - 1));
            int end = start + window;
            // Never split a surrogate pair: half an emoji would count as garbage bytes.
            if (Character.isLowSurrogate(text.charAt(start))) start++;
            if (end < length && Character.isLowSurrogate(text.charAt(end))) end++;
            chars += end - start;
            tokens += encoding.countTokensOrdinary(text.substring(start, end));
        }
        observe(chars, tokens);
        return extrapolate(length, tokens, chars);
    }

    private long observe(long chars, long tokens) {
        seenChars += chars;
        seenTokens += tokens;
        return tokens;
    }

    private static long extrapolate(long length, long tokens, long chars) {
        return (long) Math.ceil((double) length * tokens / chars);
    }
}
