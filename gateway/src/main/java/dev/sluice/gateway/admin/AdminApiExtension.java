package dev.sluice.gateway.admin;

import org.springframework.web.reactive.function.server.RouterFunctions;

/**
 * Admin API routes contributed by an optional module (the lab's runs). They are added under
 * {@code /admin/api} before the JSON 404, so they get the same authentication, the same JSON error
 * bodies ({@link AdminError}) and the same-origin check on writes as the built-in routes.
 */
public interface AdminApiExtension {
    void addRoutes(RouterFunctions.Builder api);
}
