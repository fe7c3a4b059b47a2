package dev.sluice.gateway.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * tiers.schema.json (JSON Schema 2020-12), the one list of tiers.yaml's fields. The parser
 * takes each mapping's known fields from it, so a field is added or renamed there; the
 * parser's own code still gives each field its meaning, its checks and its messages.
 */
public final class TiersSchema {
    /** On the class path, beside the gateway's classes. */
    public static final String RESOURCE = "tiers.schema.json";

    private static final JsonNode SCHEMA = load();

    private TiersSchema() {}

    /** The fields of the document's root, in the schema's order. */
    public static Set<String> root() {
        return names(SCHEMA, "(root)");
    }

    /** The fields of one kind of mapping, named as under the schema's $defs: tier, window, ladder, abuse, provider, model, demo-tenant. */
    public static Set<String> fields(String kind) {
        return names(SCHEMA.path("$defs").path(kind), kind);
    }

    /** The schema itself (a copy), for what the field names alone do not say: types, bounds, defaults. */
    public static JsonNode document() {
        return SCHEMA.deepCopy();
    }

    private static Set<String> names(JsonNode object, String kind) {
        JsonNode properties = object.path("properties");
        if (!properties.isObject())
            throw new IllegalArgumentException(RESOURCE + " declares no fields for '" + kind + "'");
        return Collections.unmodifiableSet(new LinkedHashSet<>(properties.propertyNames()));
    }

    private static JsonNode load() {
        try (InputStream in = TiersSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the class path");
            return JsonMapper.builder().build().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
