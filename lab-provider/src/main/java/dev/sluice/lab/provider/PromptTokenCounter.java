package dev.sluice.lab.provider;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import dev.sluice.gateway.estimate.ModelEncodings;

/**
 * Counts prompt tokens with the BPE encodings the real models use, so usage numbers are what a
 * gateway would see from OpenAI (give or take the chat framing, which OpenAI does not publish exactly).
 */
final class PromptTokenCounter {

    /** Per-message framing in a chat prompt (role and separators). */
    static final int TOKENS_PER_MESSAGE = 4;
    /** Every reply is primed with the assistant's header. */
    static final int TOKENS_PER_REPLY = 3;

    /** The estimator's table: the simulator bills every model with the vocabulary the gateway reserves with. */
    private final ModelEncodings encodings;

    /**
     * Loading a vocabulary takes most of a second, and encodings are immutable and thread-safe, so one
     * instance serves every server in the JVM (tests start many).
     */
    static PromptTokenCounter shared() {
        return Holder.INSTANCE;
    }

    private static final class Holder {
        static final PromptTokenCounter INSTANCE = new PromptTokenCounter();
    }

    PromptTokenCounter() {
        this.encodings = new ModelEncodings(Encodings.newLazyEncodingRegistry());
    }

    Encoding encodingFor(String model) {
        return encodings.forModel(model);
    }

    int count(String model, String text) {
        // Ordinary: text that happens to spell a special token is user text, not a control token.
        return text == null || text.isEmpty() ? 0 : encodingFor(model).countTokensOrdinary(text);
    }
}
