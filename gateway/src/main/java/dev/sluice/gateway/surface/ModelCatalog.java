package dev.sluice.gateway.surface;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.sluice.gateway.api.Json;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The models a tenant can name, from the configuration in force: every model a provider lists
 * limits for (not the "*" catch-all), every model with a route, and every model of a tier's
 * downgrade map, both the models it downgrades and their cheaper targets: the union over all
 * providers, each listed once and owned by the first provider of its route.
 * A tier that lists its models sees only those ({@link #of(SluiceConfig, Tier)}).
 * Written in OpenAI's shape ({@code object: list} of {@code object: model}) so SDKs and chat
 * front ends that list models first work without a call to the provider. Pure.
 */
public final class ModelCatalog {
    /** Model id → owning provider, sorted by id so the listing is stable. */
    private final Map<String, String> owners;

    private ModelCatalog(Map<String, String> owners) {
        this.owners = owners;
    }

    public static ModelCatalog of(SluiceConfig config) {
        Map<String, String> owners = new TreeMap<>();
        for (ProviderSettings p : config.providers()) {
            for (String model : p.models().keySet()) {
                if (!model.equals(ProviderSettings.ANY_MODEL))
                    owners.putIfAbsent(model, config.providerFor(model).name());
            }
        }
        config.routes()
                .keySet()
                .forEach(model ->
                        owners.putIfAbsent(model, config.providerFor(model).name()));
        for (Tier tier : config.tiers().values()) {
            tier.downgrade().forEach((from, to) -> {
                owners.putIfAbsent(from, config.providerFor(from).name());
                owners.putIfAbsent(to, config.providerFor(to).name());
            });
        }
        return new ModelCatalog(owners);
    }

    /**
     * The models a tenant of {@code tier} can name: the whole catalog for a tier that lists no
     * models, else the tier's list, each model a provider serves (a "*" catch-all serves any).
     */
    public static ModelCatalog of(SluiceConfig config, Tier tier) {
        if (!tier.models().listed()) return of(config);
        Map<String, String> owners = new TreeMap<>();
        for (String model : tier.models().allowed()) {
            if (config.serves(model))
                owners.put(model, config.providerFor(model).name());
        }
        return new ModelCatalog(owners);
    }

    public boolean contains(String id) {
        return owners.containsKey(id);
    }

    /** {@code GET /v1/models}. */
    public String listJson() {
        return Json.write(new ModelList(
                "list",
                owners.entrySet().stream()
                        .map(e -> model(e.getKey(), e.getValue()))
                        .toList()));
    }

    /** {@code GET /v1/models/{id}}; only for an id it {@link #contains}. */
    public String modelJson(String id) {
        return Json.write(model(id, owners.get(id)));
    }

    /** {@code created} is unknown to the gateway: 0, an integer as SDKs expect. */
    private static Model model(String id, String owner) {
        return new Model(id, "model", 0, owner);
    }

    record ModelList(String object, List<Model> data) {}

    record Model(
            String id,
            String object,
            long created,
            @JsonProperty("owned_by") String ownedBy) {}
}
