package dev.sluice.gateway.estimate;

/**
 * The tenant operations whose cost Sluice estimates before the call and settles after it; every
 * other reachable operation spends nothing at the provider (reads, deletes, object metadata) and
 * is counted only as a request. Which paths are reachable at all is the surface's table.
 */
public enum Endpoint {
    CHAT("/v1/chat/completions"),
    COMPLETIONS("/v1/completions"),
    EMBEDDINGS("/v1/embeddings"),
    RESPONSES("/v1/responses"),
    MODERATIONS("/v1/moderations"),
    /** Priced per image and size: the estimate is a token stand-in per image. */
    IMAGES("/v1/images/generations"),
    /** Text to speech: priced per character of input. */
    SPEECH("/v1/audio/speech"),
    /** A batch: the estimate of its input file's lines, recorded when the file was uploaded. */
    BATCHES("/v1/batches"),
    OTHER(null);

    private final String path;

    Endpoint(String path) {
        this.path = path;
    }

    /** The tenant path as the client sent it, without the query string; exact, case and all. */
    public static Endpoint fromPath(String path) {
        if (path != null) {
            for (Endpoint e : values()) {
                if (path.equals(e.path)) return e;
            }
        }
        return OTHER;
    }

    public String path() {
        return path;
    }
}
