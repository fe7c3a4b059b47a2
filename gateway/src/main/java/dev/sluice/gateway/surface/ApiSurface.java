package dev.sluice.gateway.surface;

import dev.sluice.gateway.estimate.Endpoint;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.HttpStatus;

/**
 * What the tenant API answers at all, decided from the request line alone, before any key is
 * looked up or anything is charged: the path (a plain {@code /v1/...} path of a known OpenAI
 * endpoint family, so nothing reaches the provider or another handler with a different meaning
 * than it shows), the method, and for the counted endpoints the body's media type. Pure.
 */
public final class ApiSurface {
    /** The endpoint families of OpenAI's API under /v1; the rest of the path passes through. */
    static final Set<String> FAMILIES = Set.of("chat", "completions", "embeddings", "responses", "models", "files",
            "uploads", "audio", "images", "moderations", "batches", "fine_tuning", "vector_stores", "assistants",
            "threads", "realtime", "evals", "containers", "conversations");
    /** OpenAI's API uses only these; any other method name, invented ones included, is refused. */
    static final List<String> PROXIED_METHODS = List.of("GET", "POST", "DELETE");

    /** A refusal: status, OpenAI error code, message, and for 405 the methods allowed. */
    public record Refusal(HttpStatus status, String code, String message, String param, String allow) {
    }

    private ApiSurface() {
    }

    /**
     * @param rawPath     the path as sent, still percent-encoded, without the query
     * @param contentType the Content-Type header, or null
     * @return null when the request may go on, else why not
     */
    public static Refusal check(String method, String rawPath, String contentType) {
        String m = method == null ? "" : method;
        String[] segments = segments(rawPath);
        if (segments == null) {
            return new Refusal(HttpStatus.BAD_REQUEST, "invalid_path",
                    "Invalid URL (" + m + " " + rawPath + "): use a plain /v1/... path, without dot segments, "
                            + "empty segments, backslashes or percent-encoding.", null, null);
        }
        if (segments.length < 3 || !FAMILIES.contains(segments[2])) {
            return new Refusal(HttpStatus.NOT_FOUND, "unknown_url", "Invalid URL (" + m + " " + rawPath + ")", null, null);
        }
        Endpoint counted = Endpoint.fromPath(rawPath);
        List<String> allowed = counted != Endpoint.OTHER ? List.of("POST")
                : segments[2].equals("models") ? List.of("GET")
                : PROXIED_METHODS;
        if (!allowed.contains(m)) {
            return new Refusal(HttpStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                    "Method " + m + " is not allowed on " + rawPath + "; allowed: " + String.join(", ", allowed) + ".",
                    null, String.join(", ", allowed));
        }
        if (counted != Endpoint.OTHER && !isJson(contentType)) {
            return new Refusal(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type",
                    "The body of " + rawPath + " must be JSON (Content-Type: application/json), got '" + contentType + "'.",
                    null, null);
        }
        return null;
    }

    /**
     * Whether the body is declared JSON: {@code application/json} with or without parameters
     * (charset), or a {@code +json} type. No Content-Type at all is taken as JSON too: the body
     * is parsed as JSON either way, and minimal clients omit it.
     */
    public static boolean isJson(String contentType) {
        if (contentType == null || contentType.isBlank()) return true;
        String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    /** The path's segments ("" first, then "v1", ...), or null when it is not a plain /v1 path. */
    private static String[] segments(String rawPath) {
        if (rawPath == null || !(rawPath.equals("/v1") || rawPath.startsWith("/v1/"))) return null;
        String[] segments = rawPath.split("/", -1);
        for (int i = 1; i < segments.length; i++) {
            if (!isPlainSegment(segments[i])) return null;
        }
        return segments;
    }

    /**
     * A path segment as OpenAI's ids and names are written (file-abc, ft:gpt-4o:org::id,
     * vs_abc, gpt-4.1): {@code [A-Za-z0-9._~:@-]+}, no percent-encoding, no backslash, no empty
     * or dot-only segment, so the path cannot be read two ways by a proxy, a provider or a
     * router. By hand, not a regex and a stream: this runs for every request.
     */
    static boolean isPlainSegment(String s) {
        boolean dotsOnly = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '.') dotsOnly = false;
            boolean allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '-';
            if (!allowed) return false;
        }
        return !s.isEmpty() && !dotsOnly;
    }

}
