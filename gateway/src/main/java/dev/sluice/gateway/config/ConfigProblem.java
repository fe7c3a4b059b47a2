package dev.sluice.gateway.config;

/** One thing wrong with a configuration document: where (field path, 1-based line or 0) and what. */
public record ConfigProblem(String field, int line, String message) {
    @Override
    public String toString() {
        return (line > 0 ? "line " + line + ": " : "") + field + ": " + message;
    }
}
