package dev.sluice.gateway.api;

/**
 * The order of Sluice's global filters on the request path, in one place so the path reads
 * top to bottom. Spring Cloud Gateway's own routing filters run at 10000 and above.
 */
public final class FilterOrder {
    public static final int AUTHENTICATE = -1000;
    /** /v1/models is answered here, from the configuration: authenticated, never estimated, charged or proxied. */
    public static final int MODELS = -950;
    public static final int ESTIMATE = -900;
    public static final int QUOTA = -800;
    public static final int DISPATCH = -700;
    public static final int UPSTREAM_CREDENTIALS = 9000;

    private FilterOrder() {
    }
}
