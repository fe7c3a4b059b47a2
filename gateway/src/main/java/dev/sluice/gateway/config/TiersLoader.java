package dev.sluice.gateway.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds tiers.yaml: the path given, else {@code ./tiers.yaml} in the working directory, else
 * the copy embedded in the jar at build time (so a bare jar runs with the defaults).
 */
public final class TiersLoader {
    public static final String EMBEDDED = "sluice/tiers.yaml";

    /** A document and where it came from, for messages. */
    public record Source(String name, String yaml) {}

    private TiersLoader() {}

    public static Source locate(String configuredPath) {
        if (configuredPath != null && !configuredPath.isBlank()) {
            Path p = Path.of(configuredPath);
            if (!Files.isRegularFile(p)) {
                throw new ConfigException(
                        p.toString(),
                        List.of(new ConfigProblem("(file)", 0, "not found (sluice.tiers.path / SLUICE_TIERS_PATH)")));
            }
            return new Source(p.toString(), read(p));
        }
        Path local = Path.of("tiers.yaml");
        if (Files.isRegularFile(local))
            return new Source(local.toAbsolutePath().normalize().toString(), read(local));
        try (InputStream in = TiersLoader.class.getClassLoader().getResourceAsStream(EMBEDDED)) {
            if (in == null) throw new IllegalStateException("no tiers.yaml given and none embedded in the build");
            return new Source("embedded tiers.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static SluiceConfig load(Source source) {
        return TiersYamlParser.parse(source.name(), source.yaml());
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(
                    p.toString(), List.of(new ConfigProblem("(file)", 0, "unreadable: " + e.getMessage())));
        }
    }
}
