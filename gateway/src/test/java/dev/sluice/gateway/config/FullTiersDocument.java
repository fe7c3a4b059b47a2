package dev.sluice.gateway.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * src/test/resources/tiers/full.yaml, which sets every field tiers.schema.json names, and where
 * each kind of mapping (the schema's $defs) sits in it. The admin API's view of the parsed
 * document keeps tiers.yaml's names and nesting, so the same places find them in the view.
 */
public final class FullTiersDocument {
    private static final Path FULL = Path.of("src/test/resources/tiers/full.yaml");

    /** Each kind's place from the root: mapping keys and list indices. */
    public static final Map<String, List<Object>> AT = Map.of(
            "tier", List.of("tiers", "t"),
            "window", List.of("tiers", "t", "windows", 0),
            "model-limit", List.of("tiers", "t", "model-limits", "gpt-4o"),
            "spend", List.of("tiers", "t", "spend"),
            "ladder", List.of("ladder"),
            "abuse", List.of("abuse"),
            "provider", List.of("providers", 0),
            "model", List.of("providers", 0, "models", "gpt-4o"),
            "demo-tenant", List.of("demo-tenants", 0));

    private FullTiersDocument() {}

    /** The document as plain maps and lists, to change before {@link #yaml}. */
    public static Map<String, Object> load() {
        try {
            return new Yaml().load(Files.readString(FULL));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String yaml(Map<String, Object> doc) {
        return new Yaml().dump(doc);
    }

    /** The mapping at {@code at} in a document or a view. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> mapping(Map<String, Object> root, List<Object> at) {
        Object node = root;
        for (Object p : at)
            node = p instanceof Integer i ? ((List<Object>) node).get(i) : ((Map<String, Object>) node).get(p);
        return (Map<String, Object>) node;
    }
}
