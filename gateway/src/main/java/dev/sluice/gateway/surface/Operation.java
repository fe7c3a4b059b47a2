package dev.sluice.gateway.surface;

import dev.sluice.gateway.config.Family;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One operation of the tenant API: method and path template exactly as OpenAI's API reference
 * writes them ({@code /v1/files/{file_id}/content}), its family, what it does to the account,
 * the query parameters it takes, its body and the largest body it is sent.
 *
 * @param query        the query parameters passed on (a name also passes as {@code name[]} and
 *                     {@code name[key]}, as SDKs write arrays and maps); every other is dropped
 * @param maxBodyBytes the largest body forwarded; 0 for an operation that takes none
 */
public record Operation(
        String method, String template, Family family, Kind kind, Set<String> query, BodyType body, long maxBodyBytes) {
    public Operation {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(template, "template");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(body, "body");
        query = Set.copyOf(query);
        if (!template.startsWith("/v1/")) throw new IllegalArgumentException("not a /v1 template: " + template);
        if (maxBodyBytes < 0 || (body == BodyType.NONE) != (maxBodyBytes == 0)) {
            throw new IllegalArgumentException(method + " " + template + ": a body limit exactly when it takes a body");
        }
    }

    /** The template's segments after {@code /v1}; a variable is written {@code {name}}. */
    List<String> segments() {
        return List.of(template.substring(4).split("/"));
    }

    /** Whether a query parameter named {@code name} (decoded) goes on to the provider. */
    public boolean takesParameter(String name) {
        int bracket = name.indexOf('[');
        String base = bracket < 0 ? name : name.substring(0, bracket);
        if (bracket >= 0 && !name.endsWith("]")) return false;
        return query.contains(base);
    }

    @Override
    public String toString() {
        return method + " " + template;
    }
}
