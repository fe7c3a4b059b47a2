package dev.sluice.lab.provider;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;

/**
 * Counts prompt tokens with the BPE encodings the real models use, so usage numbers are what a
 * gateway would see from OpenAI (give or take the chat framing, which OpenAI does not publish exactly).
 */
final class PromptTokenCounter {

    /** Per-message framing in a chat prompt (role and separators). */
    static final int TOKENS_PER_MESSAGE = 4;
    /** Every reply is primed with the assistant's header. */
    static final int TOKENS_PER_REPLY = 3;

    private final Encoding o200k;
    private final Encoding cl100k;

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
        // Lazy: an encoding's vocabulary is loaded on first use, so an unused one costs nothing.
        EncodingRegistry registry = Encodings.newLazyEncodingRegistry();
        this.o200k = registry.getEncoding(EncodingType.O200K_BASE);
        this.cl100k = registry.getEncoding(EncodingType.CL100K_BASE);
    }

    Encoding encodingFor(String model) {
        String m = model == null ? "" : model.toLowerCase(Locale.ROOT);
        boolean o200kModel = m.startsWith("gpt-4o") || m.startsWith("gpt-4.1") || m.startsWith("gpt-5")
                || m.startsWith("o1") || m.startsWith("o3") || m.startsWith("o4");
        return o200kModel ? o200k : cl100k;
    }

    int count(String model, String text) {
        // Ordinary: text that happens to spell a special token is user text, not a control token.
        return text == null || text.isEmpty() ? 0 : encodingFor(model).countTokensOrdinary(text);
    }
}
