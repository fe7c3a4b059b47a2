package dev.sluice.gateway.surface;

import java.util.Locale;

/** The body an operation takes, as OpenAI's API reference gives it. */
public enum BodyType {
    /** None: a body sent anyway is not forwarded. */
    NONE,
    /** JSON; no Content-Type at all is taken as JSON too (minimal clients omit it). */
    JSON,
    /** A form upload: {@code multipart/form-data} with its boundary. */
    MULTIPART,
    /** Either (an image edit, a container file: an upload or a reference to a file). */
    JSON_OR_MULTIPART;

    /** Whether a request with this Content-Type (or none) is of this body type. */
    public boolean accepts(String contentType) {
        return switch (this) {
            case NONE -> true;
            case JSON -> isJson(contentType);
            case MULTIPART -> isMultipart(contentType);
            case JSON_OR_MULTIPART -> isJson(contentType) || isMultipart(contentType);
        };
    }

    /** What to tell a client whose Content-Type this type does not accept. */
    String expected() {
        return switch (this) {
            case NONE -> "no body";
            case JSON -> "JSON (Content-Type: application/json)";
            case MULTIPART -> "a form upload (Content-Type: multipart/form-data)";
            case JSON_OR_MULTIPART -> "JSON or a form upload (application/json or multipart/form-data)";
        };
    }

    /**
     * Whether the body is declared JSON: {@code application/json} with or without parameters
     * (charset), or a {@code +json} type. No Content-Type at all is taken as JSON too: the body
     * is parsed as JSON either way, and minimal clients omit it.
     */
    public static boolean isJson(String contentType) {
        if (contentType == null || contentType.isBlank()) return true;
        String type = mediaType(contentType);
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    /** multipart/form-data with a boundary: without one no server can split the parts. */
    static boolean isMultipart(String contentType) {
        if (contentType == null) return false;
        return mediaType(contentType).equals("multipart/form-data")
                && contentType.toLowerCase(Locale.ROOT).contains("boundary=");
    }

    private static String mediaType(String contentType) {
        return contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    }
}
