package dev.sluice.gateway.config;

import java.util.List;
import java.util.stream.Collectors;

/** A configuration document was refused; every problem found is listed, not just the first. */
public class ConfigException extends RuntimeException {
    private final List<ConfigProblem> problems;

    public ConfigException(String source, List<ConfigProblem> problems) {
        super("invalid configuration " + source + ":\n  "
                + problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n  ")));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
