package dev.sluice.gateway.admin;

import dev.sluice.gateway.config.ConfigProblem;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;

/**
 * A refusal of the admin API, written as {@code {"error":{"message","code","fields":[…]}}}.
 * Each field problem names the field (a JSON property, or a tiers.yaml path), the line when
 * it comes from a YAML document, and what is wrong.
 */
public class AdminError extends RuntimeException {
    /** One field's problem; {@code line} is 0 when not from a document. */
    public record FieldProblem(String field, int line, String message) {
        public static FieldProblem of(String field, String message) {
            return new FieldProblem(field, 0, message);
        }

        static FieldProblem of(ConfigProblem p) {
            return new FieldProblem(p.field(), p.line(), p.message());
        }
    }

    private final HttpStatus status;
    private final String code;
    private final List<FieldProblem> fields;
    private final Map<String, String> headers;

    public AdminError(
            HttpStatus status, String code, String message, List<FieldProblem> fields, Map<String, String> headers) {
        super(message);
        this.status = status;
        this.code = code;
        this.fields = List.copyOf(fields);
        this.headers = Map.copyOf(headers);
    }

    public AdminError(HttpStatus status, String code, String message) {
        this(status, code, message, List.of(), Map.of());
    }

    public static AdminError invalid(String message, List<FieldProblem> fields) {
        return new AdminError(HttpStatus.UNPROCESSABLE_CONTENT, "validation_failed", message, fields, Map.of());
    }

    public static AdminError invalid(String field, String message) {
        return invalid(field + ": " + message, List.of(FieldProblem.of(field, message)));
    }

    public static AdminError invalidConfig(List<ConfigProblem> problems) {
        return invalid(
                "The tiers document has " + problems.size() + (problems.size() == 1 ? " problem" : " problems")
                        + "; nothing was changed.",
                problems.stream().map(FieldProblem::of).toList());
    }

    public static AdminError notFound(String what) {
        return new AdminError(HttpStatus.NOT_FOUND, "not_found", what + " not found");
    }

    public HttpStatus status() {
        return status;
    }

    public String code() {
        return code;
    }

    public List<FieldProblem> fields() {
        return fields;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
