package dev.sluice.gateway.dispatch.upstream;

/**
 * An upstream running inside this process, used when no provider URL is configured. The quickstart's
 * simulated provider (module {@code lab-provider}) supplies one through auto-configuration; the
 * production jar has none, so there a gateway without {@code SLUICE_PROVIDER_URL} refuses to start
 * rather than failing every call.
 */
public interface BuiltInUpstream {
    /** The base URL tenant calls go to, such as {@code http://127.0.0.1:8081/v1}; read when routes are built. */
    String baseUrl();
}
