package dev.sluice.gateway.config;

import java.util.Map;
import java.util.Objects;

/**
 * An OpenAI-compatible upstream. {@code baseUrl} includes the API prefix (as SDKs take it,
 * e.g. {@code https://api.openai.com/v1}); empty means the built-in lab provider. The key is
 * never in the file: {@code apiKeyEnv} names the environment variable that holds it.
 *
 * @param upstreamModels the provider's own name for a model, where it differs (an Azure
 *                       deployment, a host's model id): the request's {@code model} is rewritten
 *                       to it on the way to this provider only
 */
public record ProviderSettings(
        String name,
        String baseUrl,
        String apiKeyEnv,
        double headroom,
        Map<String, ModelLimits> models,
        Map<String, String> upstreamModels) {
    public static final String ANY_MODEL = "*";

    public ProviderSettings {
        Objects.requireNonNull(name, "name");
        baseUrl = baseUrl == null ? "" : baseUrl;
        apiKeyEnv = apiKeyEnv == null ? "" : apiKeyEnv;
        if (headroom <= 0 || headroom > 1) throw new IllegalArgumentException("headroom must be in (0, 1]");
        models = Map.copyOf(models);
        upstreamModels = Map.copyOf(upstreamModels);
    }

    public ProviderSettings(
            String name, String baseUrl, String apiKeyEnv, double headroom, Map<String, ModelLimits> models) {
        this(name, baseUrl, apiKeyEnv, headroom, models, Map.of());
    }

    /** Limits for {@code model}: its own entry, else the "*" entry, else null. */
    public ModelLimits limitsFor(String model) {
        ModelLimits own = model == null ? null : models.get(model);
        return own != null ? own : models.get(ANY_MODEL);
    }

    /** Whether this provider takes {@code model}: it lists it, or it takes any model ("*"). */
    public boolean serves(String model) {
        return models.containsKey(ANY_MODEL) || model != null && models.containsKey(model);
    }

    /** The name this provider knows {@code model} by. */
    public String upstreamModel(String model) {
        return model == null ? null : upstreamModels.getOrDefault(model, model);
    }

    /** The same provider at another address (SLUICE_PROVIDER_URL). */
    public ProviderSettings withBaseUrl(String url) {
        return new ProviderSettings(name, url, apiKeyEnv, headroom, models, upstreamModels);
    }
}
