package dev.sluice.gateway.surface;

import java.util.List;
import org.springframework.http.HttpStatus;

/**
 * What the tenant API answers at all, decided from the request line alone, before any key is
 * looked up or anything is charged: the path (a plain {@code /v1/...} path that is exactly one
 * of {@link EndpointTable}'s operations, so nothing reaches the provider or another handler with
 * a different meaning than it shows), the method, and the body's media type. Pure.
 */
public final class ApiSurface {
    /** The table the request-line-only checks use when no limits matter (tests, tools). */
    private static final EndpointTable DEFAULT_TABLE = EndpointTable.openAi(8 << 20, 32 << 20);

    /** A refusal: status, OpenAI error code, message, and for 405 the methods allowed. */
    public record Refusal(HttpStatus status, String code, String message, String param, String allow) {}

    /** Either the operation the request is, or why it is refused; exactly one is set. */
    public record Verdict(MatchedOperation matched, Refusal refusal) {}

    private ApiSurface() {}

    /** {@link #decide} against OpenAI's table; null when the request may go on. */
    public static Refusal check(String method, String rawPath, String contentType) {
        return decide(DEFAULT_TABLE, method, rawPath, contentType).refusal();
    }

    /**
     * @param rawPath     the path as sent, still percent-encoded, without the query
     * @param contentType the Content-Type header, or null
     */
    public static Verdict decide(EndpointTable table, String method, String rawPath, String contentType) {
        String m = method == null ? "" : method;
        String[] segments = segments(rawPath);
        if (segments == null) {
            return refused(new Refusal(
                    HttpStatus.BAD_REQUEST,
                    "invalid_path",
                    "Invalid URL (" + m + " " + rawPath + "): use a plain /v1/... path, without dot segments, "
                            + "empty segments, backslashes or percent-encoding.",
                    null,
                    null));
        }
        List<String> afterV1 = List.of(segments).subList(2, segments.length);
        EndpointTable.Match match = table.match(m, afterV1);
        if (match instanceof EndpointTable.Unknown) {
            return refused(new Refusal(
                    HttpStatus.NOT_FOUND, "unknown_url", "Invalid URL (" + m + " " + rawPath + ")", null, null));
        }
        if (match instanceof EndpointTable.WrongMethod wrong) {
            String allowed = String.join(", ", wrong.allowed());
            return refused(new Refusal(
                    HttpStatus.METHOD_NOT_ALLOWED,
                    "method_not_allowed",
                    "Method " + m + " is not allowed on " + rawPath + "; allowed: " + allowed + ".",
                    null,
                    allowed));
        }
        MatchedOperation found = ((EndpointTable.Found) match).matched();
        BodyType body = found.operation().body();
        if (!body.accepts(contentType)) {
            return refused(new Refusal(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                    "unsupported_media_type",
                    "The body of " + rawPath + " must be " + body.expected() + ", got '" + contentType + "'.",
                    null,
                    null));
        }
        return new Verdict(found, null);
    }

    private static Verdict refused(Refusal refusal) {
        return new Verdict(null, refusal);
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
            boolean allowed = (c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || c == ':'
                    || c == '@'
                    || c == '-';
            if (!allowed) return false;
        }
        return !s.isEmpty() && !dotsOnly;
    }
}
