package dev.sluice.gateway.estimate;

/** The tenant endpoints whose tokens Sluice counts; everything else is counted only as a request. */
public enum Endpoint {
    CHAT("/v1/chat/completions"),
    COMPLETIONS("/v1/completions"),
    EMBEDDINGS("/v1/embeddings"),
    RESPONSES("/v1/responses"),
    OTHER(null);

    private final String path;

    Endpoint(String path) {
        this.path = path;
    }

    /** The tenant path as the client sent it, without the query string. */
    public static Endpoint fromPath(String path) {
        if (path != null) {
            for (Endpoint e : values()) {
                if (path.equals(e.path)) return e;
            }
        }
        return OTHER;
    }
}
