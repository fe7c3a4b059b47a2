package dev.sluice.gateway.config;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a refused tiers.yaml into a short start-up message instead of a stack trace. */
public class ConfigFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {
    @Override
    protected FailureAnalysis analyze(Throwable root, ConfigException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix the fields named above (README.md, \"Configuration\", lists each one), or point "
                        + "SLUICE_TIERS_PATH at a valid file.",
                cause);
    }
}
