package dev.sluice.gateway.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Tiers files for whole-app tests, written under target/ (a test never rewrites a tracked file). */
public final class TestTiers {
    /** A demo tenant of tier {@code pro} whose key is {@code sk-sluice-demo-pro}: the last section of a test's tiers file. */
    public static final String DEMO_PRO = """
            demo-tenants:
              - id: demo-pro
                tier: pro
                key-sha256: 70a395fb0af3d3097a43c8f1f52440f62484af0680686d8f3617ad1877b88ffa
            """;

    private TestTiers() {}

    /**
     * tiers.yaml as shipped (its tiers, ladder, demo tenants), with its {@code providers:} section
     * replaced by {@code providers} (starting with a newline; it may add {@code routes:}); the file's absolute path, for
     * {@code sluice.tiers.path}.
     */
    public static String shippedWithProviders(String name, String providers) throws IOException {
        String shipped = Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
        int from = shipped.indexOf("\nproviders:");
        int to = shipped.indexOf("\n# Demo tenants");
        if (from < 0 || to < from)
            throw new IllegalStateException("tiers.yaml no longer has its providers before its demo tenants");
        return written(name, shipped.substring(0, from) + providers + shipped.substring(to));
    }

    /**
     * tiers.yaml as shipped, with {@code endpoints: [families]} added to each of {@code tiers}
     * (which then open those families whole); the file's absolute path.
     */
    public static String shippedWithEndpoints(String name, String families, String... tiers) throws IOException {
        String yaml = Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
        for (String tier : tiers) {
            String head = "\n  " + tier + ":\n";
            int at = yaml.indexOf(head);
            if (at < 0) throw new IllegalStateException("tiers.yaml has no tier " + tier);
            yaml = yaml.substring(0, at + head.length()) + "    endpoints: [" + families + "]\n"
                    + yaml.substring(at + head.length());
        }
        return written(name, yaml);
    }

    /** {@code yaml} written to target/{@code name}; the file's absolute path, for {@code sluice.tiers.path}. */
    public static String written(String name, String yaml) throws IOException {
        Path file = Path.of("target", name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file.toAbsolutePath().toString();
    }
}
