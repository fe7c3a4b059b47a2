package dev.sluice.gateway.admin;

import static dev.sluice.gateway.config.FullTiersDocument.AT;
import static dev.sluice.gateway.config.FullTiersDocument.load;
import static dev.sluice.gateway.config.FullTiersDocument.mapping;
import static dev.sluice.gateway.config.FullTiersDocument.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.config.TiersSchema;
import dev.sluice.gateway.config.TiersYamlParser;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin API's view of the parsed tiers document (GET /admin/api/tiers, {@code config}) and
 * its description in openapi.yaml, held to tiers.schema.json: the same fields under the same
 * names, and a field left out shown with the schema's default.
 */
class AdminViewsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ROOT = "(root)";
    /** What the view adds to tiers.yaml's fields: whether the tier lists its endpoints (the families are written either way). */
    private static final Map<String, Set<String>> ONLY_IN_VIEW = Map.of("tier", Set.of("endpoints-listed"));
    /** What it leaves out: a demo tenant's key hash. */
    private static final Map<String, Set<String>> NOT_IN_VIEW = Map.of("demo-tenant", Set.of("key-sha256"));
    /** Where each kind's object sits under openapi.yaml's Config schema. */
    private static final Map<String, List<Object>> IN_OPENAPI = Map.of(
            ROOT,
            List.of(),
            "tier",
            List.of("properties", "tiers", "additionalProperties"),
            "window",
            List.of("properties", "tiers", "additionalProperties", "properties", "windows", "items"),
            "model-limit",
            List.of(
                    "properties",
                    "tiers",
                    "additionalProperties",
                    "properties",
                    "model-limits",
                    "additionalProperties"),
            "spend",
            List.of("properties", "tiers", "additionalProperties", "properties", "spend"),
            "ladder",
            List.of("properties", "ladder"),
            "abuse",
            List.of("properties", "abuse"),
            "provider",
            List.of("properties", "providers", "items"),
            "model",
            List.of("properties", "providers", "items", "properties", "models", "additionalProperties"),
            "demo-tenant",
            List.of("properties", "demo-tenants", "items"));

    static Stream<String> kinds() {
        return Stream.concat(Stream.of(ROOT), AT.keySet().stream().sorted());
    }

    static Stream<String> kindsWithDefaults() {
        return AT.keySet().stream().sorted().filter(k -> !defaults(k).isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void theViewWritesExactlyTheSchemasFields(String kind) {
        Map<String, Object> view = written(AdminViews.config(TiersYamlParser.parse("full.yaml", yaml(load()))));
        assertThat(mapping(view, at(kind)).keySet()).containsExactlyInAnyOrderElementsOf(viewFields(kind));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void theAdminApisDocumentDescribesTheSameFields(String kind) {
        Map<String, Object> config =
                mapping(new Yaml().load(OpenApiDocument.document()), List.of("components", "schemas", "Config"));
        Map<String, Object> described = mapping(mapping(config, IN_OPENAPI.get(kind)), List.of("properties"));
        assertThat(described.keySet()).containsExactlyInAnyOrderElementsOf(viewFields(kind));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kindsWithDefaults")
    void aFieldLeftOutIsShownWithTheSchemasDefault(String kind) {
        Map<String, Object> doc = load();
        Set<String> required = new LinkedHashSet<>();
        TiersSchema.document().path("$defs").path(kind).path("required").forEach(r -> required.add(r.asString()));
        // A model keeps one token limit: it needs at least one (the schema's anyOf), and none has a default.
        if (kind.equals("model")) required.add("tokens-per-minute");
        // A spend keeps one budget: it needs at least one (the schema's anyOf), and none has a default.
        if (kind.equals("spend")) required.add("usd-per-day");
        mapping(doc, AT.get(kind)).keySet().retainAll(required);

        Map<String, Object> shown =
                mapping(written(AdminViews.config(TiersYamlParser.parse("defaults.yaml", yaml(doc)))), AT.get(kind));
        defaults(kind).forEach((field, d) -> {
            Object value = shown.get(field);
            if (d.isNumber())
                assertThat(((Number) value).doubleValue()).as(field).isEqualTo(d.asDouble());
            else if (d.isBoolean()) assertThat(value).as(field).isEqualTo(d.asBoolean());
            else assertThat(value).as(field).isEqualTo(d.asString());
        });
    }

    /** The view as the API writes it: its records through Jackson. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> written(AdminViews.ConfigView view) {
        return JSON.convertValue(view, Map.class);
    }

    private static List<Object> at(String kind) {
        return kind.equals(ROOT) ? List.of() : AT.get(kind);
    }

    private static Set<String> viewFields(String kind) {
        Set<String> fields = new LinkedHashSet<>(kind.equals(ROOT) ? TiersSchema.root() : TiersSchema.fields(kind));
        fields.addAll(ONLY_IN_VIEW.getOrDefault(kind, Set.of()));
        fields.removeAll(NOT_IN_VIEW.getOrDefault(kind, Set.of()));
        return fields;
    }

    private static Map<String, JsonNode> defaults(String kind) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        TiersSchema.document()
                .path("$defs")
                .path(kind)
                .path("properties")
                .properties()
                .forEach(p -> {
                    if (p.getValue().has("default"))
                        out.put(p.getKey(), p.getValue().get("default"));
                });
        return out;
    }
}
