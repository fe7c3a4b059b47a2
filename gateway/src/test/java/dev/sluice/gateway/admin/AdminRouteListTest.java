package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * How AdminApiContractTest sees a route the document lacks: the router is walked, nested paths and
 * filters included, so a route added to AdminRoutes appears without anyone updating a list.
 */
class AdminRouteListTest {
    static final HandlerFunction<ServerResponse> OK = r -> ServerResponse.ok().build();

    @Test
    void aNewRouteUnderTheAdminApiIsSeenWithItsMethod() {
        RouterFunction<ServerResponse> router = RouterFunctions.route()
                .path(
                        "/admin/api",
                        api -> api.GET("/tenants", OK)
                                .DELETE("/tenants/{id}/keys/{keyId}", OK)
                                .POST("/brand-new", OK) // the undocumented route a developer just added
                                .route(r -> true, OK)) // the JSON 404 catch-all: no method or path to read
                .filter((request, next) -> next.handle(request))
                .GET("/elsewhere", OK) // not the admin API
                .build();
        assertThat(AdminRouteList.of(router))
                .containsExactlyInAnyOrder("GET /tenants", "DELETE /tenants/{id}/keys/{keyId}", "POST /brand-new");
        assertThat(OpenApiDocument.operations(OpenApiDocument.document()))
                .extracting(OpenApiDocument.Operation::key)
                .doesNotContain("POST /brand-new")
                .contains("GET /tenants");
    }
}
