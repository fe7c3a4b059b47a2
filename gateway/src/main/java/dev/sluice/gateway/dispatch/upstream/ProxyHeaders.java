package dev.sluice.gateway.dispatch.upstream;

import java.util.Locale;
import java.util.Set;
import org.springframework.http.HttpHeaders;

/**
 * Which headers cross the proxy, each way. Both are allow-lists: a header nobody thought of
 * (a new provider's account or tracing header, a client's cookie) stays on its side until
 * someone decides it should cross. docs/security.md lists them.
 *
 * <p>To the provider: what it needs to read the call, plus {@code Authorization}, which by then
 * holds the provider's key ({@link UpstreamCredentialsFilter} removed the tenant's). The
 * tenant's {@code X-Sluice-*}, {@code Cookie}, {@code x-api-key}, {@code OpenAI-Organization} /
 * {@code -Project} (which would pick an organisation on our account), {@code Forwarded} /
 * {@code X-Forwarded-*} (the tenant's address is not the provider's business) and hop-by-hop
 * headers do not cross. Nor do {@code Accept-Encoding} and {@code Content-Encoding}: the gateway
 * reads every body it meters, so it asks the provider for compression itself and reads the
 * answer decompressed (a gzipped answer let through would hide its usage from the settle stage).
 *
 * <p>To the tenant: the body's description, the provider's request id and processing time,
 * and the six {@code x-ratelimit-*} names, which stay only so that {@link UpstreamAnswer} can
 * read the provider's room before the quota stage writes the tenant's own values over them at
 * commit. The provider's {@code Set-Cookie}, {@code Server}, {@code openai-organization},
 * {@code openai-project}, CDN and tracing headers do not cross.
 */
public final class ProxyHeaders {
    static final Set<String> TO_PROVIDER = Set.of(
            "accept",
            "content-type",
            "content-length",
            "user-agent",
            "openai-beta",
            "idempotency-key",
            "authorization");

    static final Set<String> TO_TENANT = Set.of(
            "content-type",
            "content-length",
            "content-disposition",
            "content-language",
            "cache-control",
            "etag",
            "last-modified",
            "x-request-id",
            "openai-processing-ms",
            "openai-version",
            "retry-after",
            "retry-after-ms",
            "x-ratelimit-limit-requests",
            "x-ratelimit-remaining-requests",
            "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-tokens");

    private ProxyHeaders() {}

    /** The tenant's request headers the provider may see (Host is set from the upstream's URL). */
    public static HttpHeaders toProvider(HttpHeaders tenant) {
        return keep(tenant, TO_PROVIDER);
    }

    /** The provider's response headers the tenant may see. */
    public static HttpHeaders toTenant(HttpHeaders provider) {
        return keep(provider, TO_TENANT);
    }

    private static HttpHeaders keep(HttpHeaders in, Set<String> allowed) {
        HttpHeaders out = new HttpHeaders();
        in.forEach((name, values) -> {
            if (allowed.contains(name.toLowerCase(Locale.ROOT))) out.addAll(name, values);
        });
        return out;
    }
}
