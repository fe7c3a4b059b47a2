package dev.sluice.gateway.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which models a tier may use, and the token windows it keeps per model.
 *
 * @param allowed the models the tier may name, in the document's order; null: every model
 * @param limits  per model, a window of its own charged beside the tier's (same atomic step)
 */
public record TierModels(Set<String> allowed, Map<String, ModelWindow> limits) {
    /** No list and no per-model windows: what a tier without {@code models} and {@code model-limits} gets. */
    public static final TierModels ALL = new TierModels(null, Map.of());

    /** The prefix of a per-model window's name, so it can never be mistaken for (or collide with) a tier's window. */
    public static final String WINDOW_PREFIX = "model:";

    public TierModels {
        allowed = allowed == null ? null : Collections.unmodifiableSet(new LinkedHashSet<>(allowed));
        limits = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(limits, "limits")));
        if (allowed != null) {
            if (allowed.isEmpty()) throw new IllegalArgumentException("models: an empty list allows nothing");
            for (String m : limits.keySet())
                if (!allowed.contains(m)) throw new IllegalArgumentException("model-limits: " + m + " is not allowed");
        }
    }

    /**
     * One model's window over any 60 s, no burst.
     *
     * @param requestsPerMinute {@link Long#MAX_VALUE} when the tier caps only the model's tokens
     */
    public record ModelWindow(long tokensPerMinute, long requestsPerMinute) {
        public ModelWindow {
            if (tokensPerMinute <= 0 || requestsPerMinute <= 0)
                throw new IllegalArgumentException("a model's limits must be positive");
        }

        public boolean limitsRequests() {
            return requestsPerMinute != Long.MAX_VALUE;
        }
    }

    /** Whether the tier lists its models (false: every model is open). */
    public boolean listed() {
        return allowed != null;
    }

    /** Whether a request naming {@code model} may be served; a request that names no model always may. */
    public boolean allows(String model) {
        return allowed == null || model == null || allowed.contains(model);
    }

    /** The per-model window of {@code model}, as the quota charges it; null when the tier keeps none for it. */
    public WindowLimit windowOf(String model) {
        ModelWindow w = model == null ? null : limits.get(model);
        return w == null
                ? null
                : new WindowLimit(WINDOW_PREFIX + model, 60, w.tokensPerMinute(), w.requestsPerMinute());
    }

    /** The tier's windows for a request naming {@code model}: the tier's own, then the model's when it has one. */
    public List<WindowLimit> windowsFor(List<WindowLimit> tierWindows, String model) {
        WindowLimit own = windowOf(model);
        if (own == null) return tierWindows;
        List<WindowLimit> all = new ArrayList<>(tierWindows.size() + 1);
        all.addAll(tierWindows);
        all.add(own);
        return all;
    }

    /** The model a per-model window is for, or null when {@code windowName} is a tier's own window. */
    public static String modelOf(String windowName) {
        return windowName != null && windowName.startsWith(WINDOW_PREFIX)
                ? windowName.substring(WINDOW_PREFIX.length())
                : null;
    }
}
