package dev.sluice.gateway.acceptance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 17's judged setup as a tiers document: two providers that both serve {@code gpt-4o-mini}, each with its own
 * base URL, key variable and limits, and the route {@code gpt-4o-mini: [primary, secondary]}. The rest (tiers, ladder,
 * abuse, demo tenants) is {@code tiers.yaml} as shipped, so the tenants are the product's own.
 */
final class TwoProviders {
    static final String PRIMARY = "primary";
    static final String SECONDARY = "secondary";
    static final String MODEL = "gpt-4o-mini";

    private TwoProviders() {}

    /** One provider's entry: its limits for {@link #MODEL}, and the variable its key is read from (empty: no key). */
    record Provider(
            String name,
            String baseUrl,
            String apiKeyEnv,
            int requestsPerMinute,
            int tokensPerMinute,
            int maxInFlight) {
        Provider {
            if (!apiKeyEnv.isEmpty() && !apiKeyEnv.startsWith("SLUICE_PROVIDER_")) {
                throw new IllegalArgumentException(
                        "a provider's key variable starts with SLUICE_PROVIDER_: " + apiKeyEnv);
            }
        }

        String yaml(double headroom) {
            return String.format(
                    Locale.ROOT,
                    """
                      - name: %s
                        base-url: "%s"
                    %s    headroom: %s
                        models:
                          %s:
                            requests-per-minute: %d
                            tokens-per-minute: %d
                            max-in-flight: %d
                            price-per-million-tokens: 3.0
                    """,
                    name,
                    baseUrl,
                    apiKeyEnv.isEmpty() ? "" : "    api-key-env: " + apiKeyEnv + "\n",
                    headroom,
                    MODEL,
                    requestsPerMinute,
                    tokensPerMinute,
                    maxInFlight);
        }
    }

    /** The shipped tiers.yaml with its providers (and any routes) replaced by {@code primary} and {@code secondary}. */
    static String yaml(Provider primary, Provider secondary, double headroom) {
        String shipped;
        try {
            shipped = Files.readString(Path.of("../tiers.yaml"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return downgradesTo(MODEL, withoutTopLevel(shipped, List.of("providers", "routes")))
                + "\n# Issue 17's judged setup (written by the lab): two providers of " + MODEL
                + ", the primary first.\n"
                + "providers:\n" + primary.yaml(headroom) + secondary.yaml(headroom)
                + "routes:\n  " + MODEL + ": [" + primary.name() + ", " + secondary.name() + "]\n";
    }

    /** Writes {@link #yaml} to {@code file} (under target/, never the checkout's own tiers.yaml) and returns its absolute path. */
    static Path write(Path file, Provider primary, Provider secondary, double headroom) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, yaml(primary, secondary, headroom));
            return file.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Keeps only the tiers' downgrades to {@code model}: a downgrade to a model no provider serves is refused, and these
     * providers serve one model (the crowd's tenants are enterprise, whose usage never reaches a downgrade anyway).
     */
    static String downgradesTo(String model, String yaml) {
        List<String> kept = new ArrayList<>();
        int downgradeIndent = -1;
        for (String line : yaml.split("\n", -1)) {
            int indent = line.length() - line.stripLeading().length();
            String content = line.replaceFirst("\\s+#.*$", "").strip();
            if (downgradeIndent >= 0 && !content.isEmpty() && indent <= downgradeIndent) downgradeIndent = -1;
            if (downgradeIndent >= 0
                    && content.contains(":")
                    && !content.substring(content.indexOf(':') + 1).strip().equals(model)) continue;
            if (content.equals("downgrade:")) downgradeIndent = indent;
            kept.add(line);
        }
        return String.join("\n", kept);
    }

    /** Drops each named top-level block: its key line and what follows up to the next line starting in column 0. */
    static String withoutTopLevel(String yaml, List<String> keys) {
        List<String> kept = new ArrayList<>();
        boolean dropping = false;
        for (String line : yaml.split("\n", -1)) {
            boolean topLevel = !line.isEmpty() && !Character.isWhitespace(line.charAt(0));
            if (topLevel) dropping = keys.stream().anyMatch(k -> line.startsWith(k + ":"));
            if (!dropping) kept.add(line);
        }
        return String.join("\n", kept);
    }
}
