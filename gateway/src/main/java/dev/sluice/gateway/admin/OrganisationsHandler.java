package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminResponses.ok;

import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaScope;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * Organisations (groups of tenants sharing windows and spend budgets), their members and their usage
 * now. Membership is set on the tenant ({@code PATCH /tenants/{id}} {@code {"organisation": …}}).
 * Deleting an organisation that has members is refused (409): its members would silently lose
 * the caps they share.
 */
final class OrganisationsHandler {
    private final AdminContext admin;
    private final OrganisationStore organisations;
    private final TenantStore tenants;
    private final QuotaLimiter quota;

    OrganisationsHandler(AdminContext admin, OrganisationStore organisations, QuotaLimiter quota) {
        this.admin = admin;
        this.organisations = organisations;
        this.tenants = admin.tenants();
        this.quota = quota;
    }

    Mono<ServerResponse> list(ServerRequest req) {
        return tenants.findAll()
                .collectList()
                .flatMap(all -> organisations
                        .findAll()
                        .map(o -> OrganisationViews.organisation(o, members(all, o.id())))
                        .collectList())
                .flatMap(list -> ok(new OrganisationViews.OrganisationList(list)));
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return organisation(req.pathVariable("id")).flatMap(this::view).flatMap(AdminResponses::ok);
    }

    Mono<ServerResponse> create(ServerRequest req) {
        return admin.bodies()
                .read(req, CapsBodies.NewOrganisation.class, "The organisation is not valid.")
                .flatMap(body -> {
                    Organisation o = body.organisation();
                    return organisations
                            .create(o)
                            .flatMap(created -> created
                                    ? admin.audit()
                                            .record(
                                                    req,
                                                    "organisation.created",
                                                    o.id(),
                                                    AuditLog.OrganisationSaved.of(o))
                                            .then(ServerResponse.created(
                                                            URI.create("/admin/api/organisations/" + o.id()))
                                                    .contentType(MediaType.APPLICATION_JSON)
                                                    .bodyValue(OrganisationViews.organisation(o, List.of())))
                                    : Mono.error(new AdminError(
                                            HttpStatus.CONFLICT,
                                            "conflict",
                                            "An organisation with id '" + o.id() + "' exists.")));
                });
    }

    Mono<ServerResponse> patch(ServerRequest req) {
        String id = req.pathVariable("id");
        return admin.bodies()
                .read(req, CapsBodies.OrganisationChange.class, "The change is not valid.")
                .flatMap(change -> organisation(id).flatMap(o -> {
                    Organisation next = change.applyTo(o);
                    return organisations
                            .save(next)
                            .then(admin.audit()
                                    .record(req, "organisation.changed", id, AuditLog.OrganisationSaved.of(next)))
                            .then(view(next))
                            .flatMap(AdminResponses::ok);
                }));
    }

    Mono<ServerResponse> delete(ServerRequest req) {
        String id = req.pathVariable("id");
        return organisation(id)
                .flatMap(o -> tenants.findAll().collectList().flatMap(all -> {
                    List<String> members = members(all, id);
                    if (!members.isEmpty())
                        return Mono.error(
                                new AdminError(
                                        HttpStatus.CONFLICT,
                                        "organisation_has_members",
                                        "Organisation '" + id + "' still has members " + members
                                                + ": move them out first (PATCH /admin/api/tenants/{id} {\"organisation\": null})."));
                    return organisations
                            .delete(id)
                            .then(admin.audit()
                                    .record(req, "organisation.deleted", id, AuditLog.OrganisationSaved.of(o)))
                            .then(ServerResponse.noContent().build());
                }));
    }

    /** Its windows and spend budgets as they stand now, shared by its members; peeked: nothing is charged. */
    Mono<ServerResponse> usage(ServerRequest req) {
        return organisation(req.pathVariable("id")).flatMap(o -> {
            QuotaScope scope = QuotaScope.organisation(o, quota.periodsNowMs());
            String at = admin.clock().instant().toString();
            if (scope.windows().isEmpty() && scope.spends().isEmpty())
                return ok(new OrganisationViews.OrganisationUsage(o.id(), at, List.of(), List.of()));
            return quota.peek(scope)
                    .onErrorMap(
                            e -> !(e instanceof AdminError),
                            e -> new AdminError(
                                    HttpStatus.SERVICE_UNAVAILABLE,
                                    "store_unavailable",
                                    "The quota store did not answer: "
                                            + e.getClass().getSimpleName()))
                    .flatMap(d -> ok(OrganisationViews.organisationUsage(o, at, d)));
        });
    }

    private Mono<OrganisationViews.OrganisationView> view(Organisation o) {
        return tenants.findAll().collectList().map(all -> OrganisationViews.organisation(o, members(all, o.id())));
    }

    private static List<String> members(List<Tenant> all, String orgId) {
        return all.stream()
                .filter(t -> orgId.equals(t.organisation()))
                .map(Tenant::id)
                .toList();
    }

    private Mono<Organisation> organisation(String id) {
        return organisations.findById(id).switchIfEmpty(Mono.error(AdminError.notFound("Organisation '" + id + "'")));
    }
}
