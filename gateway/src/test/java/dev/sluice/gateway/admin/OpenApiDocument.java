package dev.sluice.gateway.admin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.Yaml;

/** The operations an OpenAPI document declares, as "METHOD /path" with their tags (for the contract test). */
final class OpenApiDocument {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    record Operation(String method, String path, List<String> tags) {
        String key() {
            return method + " " + path;
        }
    }

    private OpenApiDocument() {}

    /** The document the gateway serves at /admin/api/openapi.yaml, from the class path. */
    static String document() {
        try {
            return new ClassPathResource("admin/openapi.yaml").getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Operation> operations(String yaml) {
        Map<String, Object> doc = new Yaml().load(yaml);
        List<Operation> out = new ArrayList<>();
        ((Map<String, Map<String, Object>>) doc.get("paths"))
                .forEach((path, item) -> item.forEach((method, op) -> {
                    if (!METHODS.contains(method)) return; // parameters, summary
                    Object tags = ((Map<String, Object>) op).get("tags");
                    out.add(new Operation(
                            method.toUpperCase(Locale.ROOT), path, tags == null ? List.of() : (List<String>) tags));
                }));
        return out;
    }
}
