package dev.sluice.gateway.dispatch.upstream;

import java.net.URI;

/**
 * Where tenant calls go: an origin and the API prefix that replaces the tenant-facing
 * {@code /v1}. {@code https://api.groq.com/openai/v1} → origin {@code https://api.groq.com},
 * prefix {@code /openai/v1}.
 */
public record UpstreamTarget(URI origin, String pathPrefix, String apiKey) {

    public static UpstreamTarget of(String baseUrl, String apiKey) {
        URI uri = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
        URI origin = URI.create(uri.getScheme() + "://" + uri.getRawAuthority());
        String prefix = uri.getRawPath() == null ? "" : uri.getRawPath();
        return new UpstreamTarget(origin, prefix, apiKey == null || apiKey.isBlank() ? null : apiKey);
    }

    /** The upstream path for a tenant path under /v1. */
    public String pathFor(String tenantPath) {
        return pathPrefix + tenantPath.substring("/v1".length());
    }

    @Override
    public String toString() { // never print the key
        return origin + pathPrefix + (apiKey == null ? " (no key)" : " (key set)");
    }
}
