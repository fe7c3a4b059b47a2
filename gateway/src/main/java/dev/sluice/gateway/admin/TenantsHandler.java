package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminResponses.ok;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.InMemoryOrganisationStore;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** Tenants, their keys and their usage series. */
final class TenantsHandler {
    record Usage(
            String tenant,
            String tier,
            int hours,
            String from,
            String to,
            double threshold,
            int consecutiveMinutes,
            List<AbuseViews.Point> points) {}

    /** Per tenant, its points as {@code [minute, utilisation, tokens, pressure]}. */
    record Series(String tenant, String tier, List<List<Object>> points) {}

    record AllUsage(
            int hours, String from, String to, double threshold, int consecutiveMinutes, List<Series> tenants) {}

    private final AdminContext admin;
    private final TenantStore tenants;
    private final UsageHistory history;
    private final OrganisationStore organisations;

    TenantsHandler(AdminContext admin, UsageHistory history) {
        this(admin, history, new InMemoryOrganisationStore());
    }

    /** @param organisations what a membership change is checked against (the organisation must exist) */
    TenantsHandler(AdminContext admin, UsageHistory history, OrganisationStore organisations) {
        this.admin = admin;
        this.tenants = admin.tenants();
        this.history = history;
        this.organisations = organisations;
    }

    Mono<ServerResponse> list(ServerRequest req) {
        return tenants.findAll()
                .concatMap(t -> tenants.keys(t.id()).count().map(n -> AdminViews.tenant(t, n)))
                .collectList()
                .flatMap(list -> ok(new AdminViews.TenantList(list)));
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return tenant(req.pathVariable("id"))
                .flatMap(t -> tenants.keys(t.id())
                        .map(AdminViews::key)
                        .collectList()
                        .flatMap(keys -> ok(new AdminViews.TenantWithKeys(AdminViews.tenant(t, keys.size()), keys))));
    }

    Mono<ServerResponse> create(ServerRequest req) {
        return admin.bodies()
                .read(req, AdminBodies.NewTenant.class, "The tenant is not valid.")
                .flatMap(body -> {
                    Tenant tenant = body.tenant();
                    String id = tenant.id();
                    return tenants.create(tenant)
                            .flatMap(created -> created
                                    ? admin.audit()
                                            .record(
                                                    req,
                                                    "tenant.created",
                                                    id,
                                                    new AuditLog.TenantCreated(tenant.tierName(), tenant.suspended()))
                                            .then(ServerResponse.created(URI.create("/admin/api/tenants/" + id))
                                                    .contentType(MediaType.APPLICATION_JSON)
                                                    .bodyValue(AdminViews.tenant(tenant, 0)))
                                    : Mono.error(new AdminError(
                                            HttpStatus.CONFLICT, "conflict", "A tenant with id '" + id + "' exists.")));
                });
    }

    Mono<ServerResponse> patch(ServerRequest req) {
        String id = req.pathVariable("id");
        Mono<AdminBodies.TenantChange> body =
                admin.bodies().read(req, AdminBodies.TenantChange.class, "The change is not valid.");
        return body.flatMap(change -> tenant(id)
                .flatMap(t -> knownOrganisation(change).then(Mono.defer(() -> {
                    // Its windows move with it: they start afresh under the new owner (QuotaScope); the old ones
                    // expire.
                    Tenant next = change.applyTo(t);
                    return tenants.save(next)
                            .then(admin.audit()
                                    .record(req, "tenant.changed", id, AuditLog.TenantChanged.between(t, next)))
                            .then(tenants.keys(id).count())
                            .flatMap(n -> ok(AdminViews.tenant(next, n)));
                }))));
    }

    /** An organisation to join must exist: 422 on the field otherwise. */
    private Mono<Void> knownOrganisation(AdminBodies.TenantChange change) {
        String orgId = change.changesOrganisation() ? change.organisationId() : null;
        if (orgId == null) return Mono.empty();
        return organisations
                .findById(orgId)
                .switchIfEmpty(Mono.error(AdminError.invalid(
                        "organisation",
                        "unknown organisation '" + orgId + "' (create it: POST /admin/api/organisations)")))
                .then();
    }

    Mono<ServerResponse> listKeys(ServerRequest req) {
        return tenant(req.pathVariable("id"))
                .flatMap(t -> tenants.keys(t.id()).map(AdminViews::key).collectList())
                .flatMap(keys -> ok(new AdminViews.KeyList(keys)));
    }

    /** Issues a key: the secret is in this response only; the store keeps its hash. */
    Mono<ServerResponse> issueKey(ServerRequest req) {
        String id = req.pathVariable("id");
        return tenant(id)
                .flatMap(t -> admin.bodies()
                        .readOptional(req, CapsBodies.KeyCaps.class, "The key's caps are not valid.")
                        .flatMap(caps -> {
                            String secret = ApiKeys.generate();
                            TenantKey key = caps.applyTo(
                                    TenantKey.forSecret(secret, admin.clock().instant()));
                            if (key.expiredAt(admin.clock().instant()))
                                return Mono.error(AdminError.invalid(
                                        "expiresAt", "must be in the future, got " + key.expiresAt()));
                            AdminViews.IssuedKey body = new AdminViews.IssuedKey(
                                    AdminViews.key(key),
                                    id,
                                    secret,
                                    "This is the only time the key is shown: store it now. Sluice keeps only its hash.");
                            return tenants.addKey(id, key)
                                    .then(admin.audit()
                                            .record(
                                                    req,
                                                    "key.issued",
                                                    id,
                                                    key.caps() || key.expiresAt() != null
                                                            ? AuditLog.KeyCaps.of(key)
                                                            : new AuditLog.Key(key.id())))
                                    .then(ServerResponse.created(
                                                    URI.create("/admin/api/tenants/" + id + "/keys/" + key.id()))
                                            .header(HttpHeaders.CACHE_CONTROL, "no-store")
                                            .contentType(MediaType.APPLICATION_JSON)
                                            .bodyValue(body));
                        }));
    }

    /** Changes a key's own caps and expiry: effective as a revocation is (here at once, elsewhere within a second). */
    Mono<ServerResponse> patchKey(ServerRequest req) {
        String id = req.pathVariable("id");
        String keyId = req.pathVariable("keyId");
        return admin.bodies()
                .read(req, CapsBodies.KeyCaps.class, "The change is not valid.")
                .flatMap(caps -> {
                    if (!caps.isAChange())
                        return Mono.error(AdminError.invalid(
                                "(body)", "nothing to change: give tokensPerMinute, usdPerDay and/or expiresAt"));
                    return tenant(id)
                            .flatMap(t -> tenants.keys(id)
                                    .filter(k -> k.id().equals(keyId))
                                    .next()
                                    .switchIfEmpty(Mono.error(
                                            AdminError.notFound("Key '" + keyId + "' of tenant '" + id + "'")))
                                    .flatMap(k -> {
                                        TenantKey next = caps.applyTo(k);
                                        return tenants.updateKey(id, next)
                                                .flatMap(found -> found
                                                        ? admin.audit()
                                                                .record(
                                                                        req,
                                                                        "key.changed",
                                                                        id,
                                                                        AuditLog.KeyCaps.of(next))
                                                                .then(ok(AdminViews.key(next)))
                                                        : Mono.error(AdminError.notFound(
                                                                "Key '" + keyId + "' of tenant '" + id + "'")));
                                    }));
                });
    }

    Mono<ServerResponse> revokeKey(ServerRequest req) {
        String id = req.pathVariable("id");
        String keyId = req.pathVariable("keyId");
        return tenant(id)
                .flatMap(t -> tenants.revokeKey(id, keyId))
                .flatMap(revoked -> revoked
                        ? admin.audit()
                                .record(req, "key.revoked", id, new AuditLog.Key(keyId))
                                .then(ServerResponse.noContent().build())
                        : Mono.error(AdminError.notFound("Key '" + keyId + "' of tenant '" + id + "'")));
    }

    Mono<ServerResponse> usage(ServerRequest req) {
        String id = req.pathVariable("id");
        SluiceConfig snapshot = admin.config().current();
        int hours = AdminRequests.intParam(req, "hours", 6, 1, snapshot.abuse().historyHours());
        long to = ActivityBuffer.minuteOf(admin.clock().millis());
        long from = to - hours * 3_600_000L;
        return tenant(id)
                .flatMap(t -> history.since(id, from)
                        .map(AbuseViews::point)
                        .collectList()
                        .flatMap(points -> ok(new Usage(
                                id,
                                t.tierName(),
                                hours,
                                Instant.ofEpochMilli(from).toString(),
                                Instant.ofEpochMilli(to).toString(),
                                snapshot.abuse().threshold(),
                                snapshot.abuse().consecutiveMinutes(),
                                points))));
    }

    /**
     * Every tenant's utilisation series in one answer, for the tenant list's sparklines (one
     * request instead of one per tenant). Compact: per tenant, {@code [minute, utilisation,
     * tokens, pressure]} with the minute counted from {@code from} (pressure, the ceiling signal the
     * detector reads, was added last so older readers of the first three are unaffected); idle
     * minutes have no point.
     */
    Mono<ServerResponse> usageAll(ServerRequest req) {
        SluiceConfig snapshot = admin.config().current();
        int hours = AdminRequests.intParam(req, "hours", 6, 1, snapshot.abuse().historyHours());
        long to = ActivityBuffer.minuteOf(admin.clock().millis());
        long from = to - hours * 3_600_000L;
        return tenants.findAll()
                .flatMapSequential(
                        t -> history.since(t.id(), from)
                                .map(s -> List.<Object>of(
                                        (s.minuteStartMs() - from) / 60_000L,
                                        AdminViews.rounded(s.utilisation()),
                                        s.tokens(),
                                        AdminViews.rounded(s.pressure())))
                                .collectList()
                                .map(points -> new Series(t.id(), t.tierName(), points)),
                        8)
                .collectList()
                .flatMap(list -> ok(new AllUsage(
                        hours,
                        Instant.ofEpochMilli(from).toString(),
                        Instant.ofEpochMilli(to).toString(),
                        snapshot.abuse().threshold(),
                        snapshot.abuse().consecutiveMinutes(),
                        list)));
    }

    private Mono<Tenant> tenant(String id) {
        return tenants.findById(id).switchIfEmpty(Mono.error(AdminError.notFound("Tenant '" + id + "'")));
    }
}
