package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.spend.SpendLedger;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.tiers.TierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.validation.Validator;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFilterFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Mono;

/**
 * The admin API's routes (authentication is {@link AdminSecurityConfiguration}'s). Every
 * refusal is a JSON error body; unknown paths under {@code /admin/api} are JSON 404s; writes
 * from another site's page ({@code Origin} not this host) are refused.
 */
@Configuration(proxyBeanMethods = false)
public class AdminRoutes {
    private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

    @Bean
    RouterFunction<ServerResponse> adminApiRoutes(
            TierDocumentStore documents,
            TierReloader reloader,
            TenantStore tenants,
            ConfigRegistry config,
            UsageHistory history,
            FlagStore flags,
            QuotaClock quotaClock,
            OrganisationStore organisations,
            QuotaLimiter quota,
            OverviewHandler overview,
            ObjectProvider<AdminApiExtension> extensions,
            AuditLog audit,
            Validator validator,
            SpendLedger ledger) {
        AdminContext admin = new AdminContext(tenants, config, quotaClock.clock(), audit, new BodyReader(validator));
        TiersHandler tiers = new TiersHandler(admin, documents, reloader);
        TenantsHandler tenantsHandler = new TenantsHandler(admin, history, organisations);
        OrganisationsHandler organisationsHandler = new OrganisationsHandler(admin, organisations, quota);
        FlagsHandler flagsHandler = new FlagsHandler(admin, flags);
        SpendHandler spend = new SpendHandler(admin, quota, ledger, organisations);
        ClassPathResource openapi = new ClassPathResource("admin/openapi.yaml");
        return RouterFunctions.route()
                .path("/admin/api", api -> {
                    api.GET(
                                    "/openapi.yaml",
                                    r -> ServerResponse.ok()
                                            .contentType(AdminRequests.YAML)
                                            .bodyValue(openapi))
                            .GET("/tiers", tiers::get)
                            .POST("/tiers/validate", tiers::validate)
                            .PUT("/tiers", tiers::put)
                            .GET("/tenants", tenantsHandler::list)
                            .POST("/tenants", tenantsHandler::create)
                            .GET("/tenants/{id}", tenantsHandler::get)
                            .PATCH("/tenants/{id}", tenantsHandler::patch)
                            .GET("/tenants/{id}/keys", tenantsHandler::listKeys)
                            .POST("/tenants/{id}/keys", tenantsHandler::issueKey)
                            .DELETE("/tenants/{id}/keys/{keyId}", tenantsHandler::revokeKey)
                            .PATCH("/tenants/{id}/keys/{keyId}", tenantsHandler::patchKey)
                            .GET("/organisations", organisationsHandler::list)
                            .POST("/organisations", organisationsHandler::create)
                            .GET("/organisations/{id}", organisationsHandler::get)
                            .PATCH("/organisations/{id}", organisationsHandler::patch)
                            .DELETE("/organisations/{id}", organisationsHandler::delete)
                            .GET("/organisations/{id}/usage", organisationsHandler::usage)
                            .GET("/organisations/{id}/spend", spend::organisation)
                            .GET("/tenants/{id}/usage", tenantsHandler::usage)
                            .GET("/tenants/{id}/spend", spend::tenant)
                            .GET("/usage", tenantsHandler::usageAll)
                            .GET("/usage/export", spend::export)
                            .GET("/overview", overview::get)
                            .GET("/flags", flagsHandler::list)
                            .GET("/flags/{id}", flagsHandler::get)
                            .POST("/flags/{id}/review", flagsHandler::review);
                    extensions
                            .orderedStream()
                            .forEach(e -> e.addRoutes(api)); // e.g. the lab's runs, where the lab module is
                    api.GET(
                                    "/audit",
                                    r -> ServerResponse.ok()
                                            .contentType(MediaType.APPLICATION_JSON)
                                            .bodyValue(new AuditLog.Recent(audit.recent(
                                                    AdminRequests.intParam(r, "limit", 100, 1, AuditLog.KEPT)))))
                            .route(
                                    r -> true,
                                    r -> Mono.error(new AdminError(
                                            HttpStatus.NOT_FOUND,
                                            "unknown_endpoint",
                                            "No admin API endpoint " + r.method() + " " + r.path()
                                                    + " (see /admin/api/openapi.yaml).")));
                })
                .filter(errorsAsJson()) // the first filter is the outermost: it turns every error below into JSON
                .filter(sameOriginWrites())
                .build();
    }

    @Bean
    AuditLog adminAuditLog(QuotaClock quotaClock) {
        return new AuditLog(quotaClock.clock());
    }

    /** Snapshots this replica's counters every few seconds, so the overview can say what the last minute did. */
    @Bean(destroyMethod = "stop")
    OverviewHandler adminOverview(MeterRegistry meters, ConfigRegistry config, QuotaClock quotaClock) {
        OverviewHandler overview = new OverviewHandler(meters, config, quotaClock.clock(), Duration.ofMinutes(1));
        overview.start(Duration.ofSeconds(5));
        return overview;
    }

    private static HandlerFilterFunction<ServerResponse, ServerResponse> errorsAsJson() {
        return (request, next) -> Mono.defer(() -> next.handle(request))
                .onErrorResume(AdminError.class, AdminResponses::error)
                .onErrorResume(
                        ServerWebInputException.class,
                        e -> AdminResponses.error(new AdminError(
                                HttpStatus.BAD_REQUEST,
                                "bad_request",
                                e.getReason() == null ? "Bad request." : e.getReason())))
                .onErrorResume(e -> !(e instanceof AdminError), e -> {
                    log.error("Admin API {} {} failed", request.method(), request.path(), e);
                    return AdminResponses.error(new AdminError(
                            HttpStatus.INTERNAL_SERVER_ERROR,
                            "internal_error",
                            "The request failed on the gateway's side: "
                                    + e.getClass().getSimpleName()
                                    + (e.getMessage() == null ? "" : ": " + e.getMessage())));
                });
    }

    /** Refuses a write whose page came from another origin (the browser says so in Origin). */
    private static HandlerFilterFunction<ServerResponse, ServerResponse> sameOriginWrites() {
        return (request, next) -> {
            HttpMethod m = request.method();
            boolean write =
                    m == HttpMethod.POST || m == HttpMethod.PUT || m == HttpMethod.PATCH || m == HttpMethod.DELETE;
            String origin = request.headers().firstHeader(HttpHeaders.ORIGIN);
            if (write && origin != null && !sameOrigin(origin, request)) {
                return Mono.error(new AdminError(
                        HttpStatus.FORBIDDEN,
                        "cross_origin",
                        "Writes to the admin API are accepted only from its own origin, not from " + origin + "."));
            }
            return next.handle(request);
        };
    }

    static boolean sameOrigin(String origin, ServerRequest request) {
        try {
            URI o = URI.create(origin);
            String host = request.headers().firstHeader(HttpHeaders.HOST);
            if (o.getHost() == null || host == null) return false;
            int port = o.getPort() != -1 ? o.getPort() : ("https".equals(o.getScheme()) ? 443 : 80);
            String authority = o.getHost() + ":" + port;
            String h = host.contains(":")
                    ? host
                    : host + ":" + ("https".equals(request.uri().getScheme()) ? 443 : 80);
            return authority.equalsIgnoreCase(h);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
