package dev.sluice.gateway.admin;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Path;
import jakarta.validation.Validator;
import jakarta.validation.groups.Default;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * Reads an admin request's JSON body into its record (Jackson) and checks it (Bean Validation),
 * naming every problem of the body in one refusal: unknown fields first, as sent, then each
 * field's problems in the order the record declares its fields (the validator's own order is
 * none). A field takes only its own JSON type: a value of another one is that field's problem
 * and reads as absent, unless the field says how it reads one ({@link AsBlank}, {@link AsAbsent},
 * {@link AsText}).
 */
final class BodyReader {
    /** No coercion: a number is no string, "true" no boolean. */
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .withCoercionConfigDefaults(c -> Arrays.stream(CoercionInputShape.values())
                    .forEach(shape -> c.setCoercion(shape, CoercionAction.Fail)))
            // A whole number is a number: an amount (a tenant's spend budget) may be written 5 as well as 5.0.
            .withCoercionConfig(
                    LogicalType.Float, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert))
            .build();

    private static final String BODY = "(body)";

    /** Checks of a body as a whole, made once each of its fields is right: until then a field's problem may be their cause. */
    interface Whole {}

    /** A body whose checks depend on what it asks for: the groups it is checked in besides the default one. */
    interface Conditional {
        List<Class<?>> groups();
    }

    private final Validator validator;

    BodyReader(Validator validator) {
        this.validator = validator;
    }

    /** The body as {@code type}, or a 422 with {@code refusal} as its message and every problem. */
    <T extends Record> Mono<T> read(ServerRequest req, Class<T> type, String refusal) {
        return read(req, type, problems -> refusal);
    }

    /** The same where the body is optional: none (or a blank one) reads as {@code {}}. */
    <T extends Record> Mono<T> readOptional(ServerRequest req, Class<T> type, String refusal) {
        return AdminRequests.optionalJsonObject(req).map(body -> {
            List<AdminError.FieldProblem> problems = new ArrayList<>();
            T value = bind(body, type, problems);
            if (!problems.isEmpty()) throw AdminError.invalid(refusal, problems);
            return value;
        });
    }

    /** The body as {@code type}, or a 422 whose message names its problems ("field: message"). */
    <T extends Record> Mono<T> read(ServerRequest req, Class<T> type) {
        return read(
                req,
                type,
                problems -> problems.stream()
                        .map(p -> p.field() + ": " + p.message())
                        .collect(Collectors.joining("; ")));
    }

    private <T extends Record> Mono<T> read(
            ServerRequest req, Class<T> type, Function<List<AdminError.FieldProblem>, String> refusal) {
        return AdminRequests.jsonObject(req).map(body -> {
            List<AdminError.FieldProblem> problems = new ArrayList<>();
            T value = bind(body, type, problems);
            if (!problems.isEmpty()) throw AdminError.invalid(refusal.apply(problems), problems);
            return value;
        });
    }

    /**
     * Each field is bound alone first, so that one of the wrong type or unknown is named and left
     * out rather than failing the whole body at the first; the rest are then bound together.
     */
    private <T extends Record> T bind(Map<String, Object> body, Class<T> type, List<AdminError.FieldProblem> problems) {
        List<String> fields = Arrays.stream(type.getRecordComponents())
                .map(RecordComponent::getName)
                .toList();
        List<AdminError.FieldProblem> fieldProblems = new ArrayList<>();
        Map<String, Object> taken = new LinkedHashMap<>();
        body.forEach((name, raw) -> {
            try {
                JSON.convertValue(Collections.singletonMap(name, raw), type);
                taken.put(name, raw);
            } catch (UnrecognizedPropertyException e) {
                if (e.getPath().size() > 1) // inside an object field (a tenant's spend): that field's problem
                fieldProblems.add(AdminError.FieldProblem.of(
                        name,
                        "unknown field '" + e.getPropertyName() + "' (expected one of "
                                + new TreeSet<>(e.getKnownPropertyIds().stream()
                                        .map(String::valueOf)
                                        .toList())
                                + ")"));
                else
                    problems.add(AdminError.FieldProblem.of(
                            name, "unknown field (expected one of " + new TreeSet<>(fields) + ")"));
            } catch (MismatchedInputException e) {
                fieldProblems.add(AdminError.FieldProblem.of(
                        name,
                        e.getPath().size() > 1 // inside an object field: name the inner field
                                ? e.getPath().get(1).getPropertyName() + ": must be a "
                                        + (e.getTargetType() == String.class ? "string" : "number")
                                : wrongType(type, name)));
            }
        });
        T value = JSON.convertValue(taken, type);
        List<Class<?>> groups = new ArrayList<>(List.of(Default.class));
        if (value instanceof Conditional c) groups.addAll(c.groups());
        fieldProblems.addAll(violations(value, fields, groups.toArray(Class<?>[]::new)));
        if (problems.isEmpty() && fieldProblems.isEmpty()) fieldProblems.addAll(violations(value, fields, Whole.class));
        fieldProblems.sort(
                Comparator.comparingInt(p -> fields.indexOf(p.field()))); // stable: a field's type problem stays first
        problems.addAll(fieldProblems);
        return value;
    }

    private List<AdminError.FieldProblem> violations(Object value, List<String> fields, Class<?>... groups) {
        return validator.validate(value, groups).stream()
                .map(v -> AdminError.FieldProblem.of(field(v, fields), v.getMessage()))
                .sorted(Comparator.comparing((AdminError.FieldProblem p) -> fields.indexOf(p.field()))
                        .thenComparing(AdminError.FieldProblem::message))
                .toList();
    }

    /** The record's field a violation is about; any other (the body as a whole) is "(body)". */
    private static String field(ConstraintViolation<?> violation, List<String> fields) {
        Iterator<Path.Node> path = violation.getPropertyPath().iterator();
        String name = path.hasNext() ? path.next().getName() : null;
        return fields.contains(name) ? name : BODY;
    }

    private static String wrongType(Class<?> type, String field) {
        Class<?> expected = Arrays.stream(type.getRecordComponents())
                .filter(c -> c.getName().equals(field))
                .findFirst()
                .orElseThrow()
                .getType();
        if (expected == Boolean.class) return "must be true or false";
        if (expected == String.class) return "must be a string";
        if (expected.isRecord()) return "must be an object";
        return "must be a " + expected.getSimpleName();
    }

    /** A string field that reads a value of another JSON type as blank: given, but with no text. */
    static final class AsBlank extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_STRING) return p.getString();
            p.skipChildren();
            return "";
        }
    }

    /** A string field that reads a value of another JSON type as absent. */
    static final class AsAbsent extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_STRING) return p.getString();
            p.skipChildren();
            return null;
        }
    }

    /** A string field that reads a value of another JSON type as Java writes it ({@code [a, 1]}, {@code {a=1}}), to name it. */
    static final class AsText extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_STRING) return p.getString();
            return String.valueOf(ctxt.readValue(p, Object.class));
        }
    }
}
