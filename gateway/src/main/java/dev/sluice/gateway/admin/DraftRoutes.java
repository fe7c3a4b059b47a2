package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.drafts.DraftShadow;
import dev.sluice.gateway.drafts.TierDraftStore;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.shadow.ShadowLedger;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.tiers.TierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import jakarta.validation.Validator;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.server.RequestPredicates;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The tiers draft's routes under {@code /admin/api/tiers/draft} (issue 28), added as an
 * {@link AdminApiExtension}: the admin API's authentication, JSON errors and same-origin check
 * apply to them as to every route. Any other method on these paths is a 405 naming the allowed ones.
 */
@Configuration(proxyBeanMethods = false)
public class DraftRoutes {

    /** No shadow evaluator in this gateway records decisions: the what-if falls back to the replay. */
    static final ShadowLedger NO_LEDGER = fromMs -> Flux.empty();

    @Bean
    AdminApiExtension tiersDraftRoutes(
            TierDocumentStore documents,
            TierReloader reloader,
            TenantStore tenants,
            ConfigRegistry config,
            UsageHistory history,
            QuotaClock quotaClock,
            AuditLog audit,
            Validator validator,
            TierDraftStore drafts,
            DraftShadow shadow,
            ObjectProvider<ShadowLedger> ledger) {
        AdminContext admin = new AdminContext(tenants, config, quotaClock.clock(), audit, new BodyReader(validator));
        return extension(new DraftsHandler(
                admin,
                new TiersHandler(admin, documents, reloader),
                reloader,
                drafts,
                shadow,
                ledger.getIfAvailable(() -> NO_LEDGER),
                history));
    }

    static AdminApiExtension extension(DraftsHandler drafts) {
        return api -> api.GET("/tiers/draft", drafts::get)
                .PUT("/tiers/draft", drafts::put)
                .DELETE("/tiers/draft", drafts::delete)
                .POST("/tiers/draft/shadow", drafts::shadow)
                .POST("/tiers/draft/promote", drafts::promote)
                .GET("/tiers/draft/whatif", drafts::whatIf)
                .route(
                        RequestPredicates.path("/tiers/draft"),
                        r -> notAllowed(r.method().name(), "GET, PUT, DELETE"))
                .route(
                        RequestPredicates.path("/tiers/draft/shadow"),
                        r -> notAllowed(r.method().name(), "POST"))
                .route(
                        RequestPredicates.path("/tiers/draft/promote"),
                        r -> notAllowed(r.method().name(), "POST"))
                .route(
                        RequestPredicates.path("/tiers/draft/whatif"),
                        r -> notAllowed(r.method().name(), "GET"));
    }

    private static <T> Mono<T> notAllowed(String method, String allowed) {
        return Mono.error(new AdminError(
                HttpStatus.METHOD_NOT_ALLOWED,
                "method_not_allowed",
                method + " is not allowed here; use " + allowed + ".",
                java.util.List.of(),
                Map.of(HttpHeaders.ALLOW, allowed)));
    }
}
