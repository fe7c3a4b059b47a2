package dev.sluice.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration processor's metadata (what IDEs complete from) describes every gateway
 * setting, and every setting the docs and application.yml name exists there: a renamed or
 * undocumented record component fails here, not in an operator's editor.
 */
class ConfigurationMetadataTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyGatewaySettingHasADescription() throws IOException {
        Map<String, String> described = sluiceProperties();
        assertThat(described)
                .as("the gateway's metadata")
                .containsKeys(
                        "sluice.store.timeout",
                        "sluice.dispatch.lease",
                        "sluice.upstream.body-timeout",
                        "sluice.abuse.tick",
                        "sluice.max-request-bytes",
                        "sluice.tiers.path",
                        "sluice.admin.user",
                        "sluice.edge.idle-timeout");
        // The lab's settings belong to the lab's modules and are described there.
        Set<String> undescribed = new TreeSet<>();
        described.forEach((name, description) -> {
            if (!name.startsWith("sluice.lab.") && description.isBlank()) undescribed.add(name);
        });
        assertThat(undescribed)
                .as("settings without a Javadoc @param on their record component")
                .isEmpty();
    }

    @Test
    void everySettingTheDocsAndApplicationYmlNameIsDescribed() throws IOException {
        Set<String> named = new TreeSet<>();
        Matcher m = Pattern.compile("`(sluice\\.[a-z0-9.-]*[a-z0-9])`")
                .matcher(Files.readString(ROOT.resolve("docs/operations.md")));
        while (m.find()) named.add(m.group(1));
        try (InputStream yml = ConfigurationMetadataTest.class.getResourceAsStream("/application.yml")) {
            Map<String, Object> tree = new Yaml().load(yml);
            flatten("", tree, named);
        }
        named.removeIf(name -> !name.startsWith("sluice."));
        assertThat(named)
                .as("settings named in docs/operations.md and application.yml")
                .contains("sluice.store.timeout", "sluice.upstream.stream-idle-timeout");

        Map<String, String> described = sluiceProperties();
        Set<String> missing = new TreeSet<>();
        for (String name : named) {
            if (described.getOrDefault(name, "").isBlank()) missing.add(name);
        }
        assertThat(missing)
                .as("named in the docs but not described in the configuration metadata")
                .isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Map<String, Object> tree, Set<String> into) {
        tree.forEach((key, value) -> {
            String name = prefix.isEmpty() ? key : prefix + "." + key;
            if (value instanceof Map<?, ?> child) flatten(name, (Map<String, Object>) child, into);
            else into.add(name);
        });
    }

    /** Every {@code sluice.*} property of every metadata file on the class path, with its description ("" if none). */
    private static Map<String, String> sluiceProperties() throws IOException {
        Map<String, String> properties = new TreeMap<>();
        JsonMapper json = JsonMapper.builder().build();
        for (URL url : Collections.list(ConfigurationMetadataTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode p : json.readTree(in).path("properties")) {
                    String name = p.path("name").asString();
                    if (name.startsWith("sluice."))
                        properties.put(name, p.path("description").asString(""));
                }
            }
        }
        return properties;
    }
}
