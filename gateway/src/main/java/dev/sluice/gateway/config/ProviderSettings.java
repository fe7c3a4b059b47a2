package dev.sluice.gateway.config;

import java.util.Map;
import java.util.Objects;

/**
 * An OpenAI-compatible upstream. {@code baseUrl} includes the API prefix (as SDKs take it,
 * e.g. {@code https://api.openai.com/v1}); empty means the built-in lab provider. The key is
 * never in the file: {@code apiKeyEnv} names the environment variable that holds it.
 */
public record ProviderSettings(String name, String baseUrl, String apiKeyEnv, double headroom, Map<String, ModelLimits> models) {
    public static final String ANY_MODEL = "*";

    public ProviderSettings {
        Objects.requireNonNull(name, "name");
        baseUrl = baseUrl == null ? "" : baseUrl;
        if (headroom <= 0 || headroom > 1) throw new IllegalArgumentException("headroom must be in (0, 1]");
        models = Map.copyOf(models);
    }

    /** Limits for {@code model}: its own entry, else the "*" entry, else null. */
    public ModelLimits limitsFor(String model) {
        ModelLimits own = model == null ? null : models.get(model);
        return own != null ? own : models.get(ANY_MODEL);
    }
}
