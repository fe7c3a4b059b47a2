package dev.sluice.gateway.estimate;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which BPE encoding counts a model's tokens; resolved once per model name. The one table: the
 * estimator reserves with it and the lab provider bills with it, so the two never count a model
 * with different vocabularies. Thread-safe; share one.
 */
public final class ModelEncodings {
    /** Model names come from clients: the cache must not grow with whatever they send. */
    private static final int MAX_CACHED_MODELS = 512;

    /** Checked before jtokkit's own prefix rules, which map "gpt-4.1…" to cl100k (as "gpt-4…"). */
    private static final String[] O200K_PREFIXES = {"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss"};

    private static final String[] O200K_REASONING = {"o1", "o3", "o4"};

    private final EncodingRegistry registry;
    private final Encoding o200k;
    private final Encoding cl100k;
    private final Map<String, Encoding> byModel = new ConcurrentHashMap<>();

    public ModelEncodings(EncodingRegistry registry) {
        this.registry = registry;
        // Loaded now, not on the first request: building a vocabulary takes a noticeable pause
        // that must not land on an event loop.
        this.o200k = registry.getEncoding(EncodingType.O200K_BASE);
        this.cl100k = registry.getEncoding(EncodingType.CL100K_BASE);
    }

    /** A request without a model (files, audio, any other /v1 path) has no text of ours to count: the default serves. */
    public Encoding forModel(String model) {
        if (model == null) return o200k;
        Encoding cached = byModel.get(model);
        if (cached != null) return cached;
        Encoding resolved = resolve(model);
        if (byModel.size() < MAX_CACHED_MODELS) byModel.putIfAbsent(model, resolved);
        return resolved;
    }

    private Encoding resolve(String model) {
        String base = baseModel(model);
        if (isO200kFamily(base)) return o200k;
        Encoding known = registry.getEncodingForModel(base).orElse(null);
        if (known != null) return known;
        if (base.startsWith("gpt-4") || base.startsWith("gpt-3.5")) return cl100k;
        // An unknown model is most likely a current OpenAI model or an open model with a
        // vocabulary of similar size (Llama 3: 128k), which all count close to o200k. Models with
        // small vocabularies (32k) need 10-30% more tokens for the same text, so for them this
        // under-reserves the prompt a little; max_tokens usually dominates the reservation and the
        // real usage corrects it either way.
        return o200k;
    }

    /** "ft:gpt-4o-mini-2024-07-18:org::id" and "openai/gpt-4o" count like their base model. */
    static String baseModel(String model) {
        String base = model.toLowerCase(Locale.ROOT);
        if (base.startsWith("ft:")) {
            int end = base.indexOf(':', 3);
            base = end < 0 ? base.substring(3) : base.substring(3, end);
        }
        int slash = base.lastIndexOf('/');
        return slash < 0 ? base : base.substring(slash + 1);
    }

    private static boolean isO200kFamily(String base) {
        for (String prefix : O200K_PREFIXES) {
            if (base.startsWith(prefix)) return true;
        }
        for (String family : O200K_REASONING) {
            if (base.equals(family) || base.startsWith(family + "-")) return true;
        }
        return false;
    }
}
