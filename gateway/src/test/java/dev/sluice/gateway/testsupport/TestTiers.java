package dev.sluice.gateway.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Tiers files for whole-app tests, written under target/ (a test never rewrites a tracked file). */
public final class TestTiers {
    private TestTiers() {
    }

    /**
     * tiers.yaml as shipped (its tiers, ladder, demo tenants), with its {@code providers:} section
     * replaced by {@code providers} (starting with a newline; it may add {@code routes:}); the file's absolute path, for
     * {@code sluice.tiers.path}.
     */
    public static String shippedWithProviders(String name, String providers) throws IOException {
        String shipped = Files.readString(Path.of("../tiers.yaml"), StandardCharsets.UTF_8);
        int from = shipped.indexOf("\nproviders:");
        int to = shipped.indexOf("\n# Demo tenants");
        if (from < 0 || to < from) throw new IllegalStateException("tiers.yaml no longer has its providers before its demo tenants");
        Path file = Path.of("target", name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, shipped.substring(0, from) + providers + shipped.substring(to), StandardCharsets.UTF_8);
        return file.toAbsolutePath().toString();
    }
}
