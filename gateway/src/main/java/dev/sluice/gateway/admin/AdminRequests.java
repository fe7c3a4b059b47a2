package dev.sluice.gateway.admin;

import java.security.Principal;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** Reading admin requests: JSON objects (a body's fields are {@link BodyReader}'s), the admin's name, query numbers. */
public final class AdminRequests {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final MediaType YAML = MediaType.parseMediaType("application/yaml");
    private static final String[] YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"};

    private AdminRequests() {}

    static boolean isYaml(MediaType type) {
        if (type == null) return false;
        String t = type.getType() + "/" + type.getSubtype();
        for (String y : YAML_TYPES) if (y.equalsIgnoreCase(t)) return true;
        return false;
    }

    public static boolean isJson(MediaType type) {
        return type != null
                && (MediaType.APPLICATION_JSON.isCompatibleWith(type)
                        || type.getSubtype().endsWith("+json"));
    }

    /** The body as a JSON object; 415 unless sent as JSON, 400 unless it parses to an object. */
    static Mono<Map<String, Object>> jsonObject(ServerRequest req) {
        return req.bodyToMono(String.class).defaultIfEmpty("").map(body -> parseObject(req, body));
    }

    /** Like {@link #jsonObject}, but an empty body is an empty object (an operation whose fields all have defaults). */
    public static Mono<Map<String, Object>> optionalJsonObject(ServerRequest req) {
        return req.bodyToMono(String.class)
                .defaultIfEmpty("")
                .map(body -> body.isBlank() ? Map.of() : parseObject(req, body));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parseObject(ServerRequest req, String body) {
        if (!isJson(req.headers().contentType().orElse(null))) {
            throw new AdminError(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type",
                    "Send the body as JSON (Content-Type: application/json).");
        }
        Object parsed;
        try {
            parsed = body.isBlank() ? null : JSON.readValue(body, Object.class);
        } catch (JacksonException e) {
            throw new AdminError(
                    HttpStatus.BAD_REQUEST, "invalid_json", "The body is not valid JSON: " + e.getOriginalMessage());
        }
        if (!(parsed instanceof Map<?, ?> map)) {
            throw new AdminError(HttpStatus.BAD_REQUEST, "invalid_json", "The body must be a JSON object.");
        }
        return (Map<String, Object>) map;
    }

    static Mono<String> adminName(ServerRequest req) {
        return req.principal().map(Principal::getName).defaultIfEmpty("admin");
    }

    static int intParam(ServerRequest req, String name, int fallback, int min, int max) {
        String raw = req.queryParam(name).orElse(null);
        if (raw == null || raw.isBlank()) return fallback;
        try {
            int v = Integer.parseInt(raw.trim());
            if (v < min || v > max)
                throw AdminError.invalid(name, "must be between " + min + " and " + max + ", got " + v);
            return v;
        } catch (NumberFormatException e) {
            throw AdminError.invalid(name, "must be a whole number, got '" + raw + "'");
        }
    }
}
