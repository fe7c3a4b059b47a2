package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantKey;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.TiersYamlParser;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** Tenants, their keys and their usage series. */
final class TenantsHandler {
    private static final Set<String> CREATE_FIELDS = Set.of("id", "tier", "suspended");
    private static final Set<String> PATCH_FIELDS = Set.of("tier", "suspended");

    record Usage(String tenant, String tier, int hours, String from, String to, double threshold, int consecutiveMinutes,
                 List<AdminViews.Point> points) {
    }

    /** Per tenant, its points as {@code [minute, utilisation, tokens, pressure]}. */
    record Series(String tenant, String tier, List<List<Object>> points) {
    }

    record AllUsage(int hours, String from, String to, double threshold, int consecutiveMinutes, List<Series> tenants) {
    }

    private final TenantStore tenants;
    private final AuditLog audit;
    private final ConfigRegistry config;
    private final UsageHistory history;
    private final Clock clock;

    TenantsHandler(TenantStore tenants, ConfigRegistry config, UsageHistory history, Clock clock, AuditLog audit) {
        this.audit = audit;
        this.tenants = tenants;
        this.config = config;
        this.history = history;
        this.clock = clock;
    }

    Mono<ServerResponse> list(ServerRequest req) {
        return tenants.findAll()
                .concatMap(t -> tenants.keys(t.id()).count().map(n -> AdminViews.tenant(t, n)))
                .collectList()
                .flatMap(list -> ok(new AdminViews.TenantList(list)));
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return tenant(req.pathVariable("id")).flatMap(t -> tenants.keys(t.id()).map(AdminViews::key).collectList()
                .flatMap(keys -> ok(new AdminViews.TenantWithKeys(AdminViews.tenant(t, keys.size()), keys))));
    }

    Mono<ServerResponse> create(ServerRequest req) {
        return AdminRequests.jsonObject(req).flatMap(body -> {
            List<AdminError.FieldProblem> problems = new ArrayList<>();
            unknownFields(body, CREATE_FIELDS, problems);
            String id = field(body, "id", problems);
            if (id == null && !body.containsKey("id")) problems.add(AdminError.FieldProblem.of("id", "is required"));
            else if (id != null && !TiersYamlParser.NAME.matcher(id).matches()) {
                problems.add(AdminError.FieldProblem.of("id",
                        "must be 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit"));
            }
            String tier = field(body, "tier", problems);
            if (tier == null && !body.containsKey("tier")) problems.add(AdminError.FieldProblem.of("tier", "is required"));
            else if (tier != null) checkTier(tier, problems);
            Boolean suspended = flag(body, "suspended", problems);
            if (!problems.isEmpty()) return Mono.error(AdminError.invalid("The tenant is not valid.", problems));
            Tenant tenant = new Tenant(id, tier, Boolean.TRUE.equals(suspended));
            return tenants.create(tenant).flatMap(created -> created
                    ? audit.record(req, "tenant.created", id, Map.of("tier", tier, "suspended", tenant.suspended()))
                            .then(ServerResponse.created(URI.create("/admin/api/tenants/" + id)).contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(AdminViews.tenant(tenant, 0)))
                    : Mono.error(new AdminError(HttpStatus.CONFLICT, "conflict", "A tenant with id '" + id + "' exists.")));
        });
    }

    Mono<ServerResponse> patch(ServerRequest req) {
        String id = req.pathVariable("id");
        return AdminRequests.jsonObject(req).flatMap(body -> {
            List<AdminError.FieldProblem> problems = new ArrayList<>();
            unknownFields(body, PATCH_FIELDS, problems);
            String tier = field(body, "tier", problems);
            if (tier != null) checkTier(tier, problems);
            Boolean suspended = flag(body, "suspended", problems);
            if (problems.isEmpty() && tier == null && suspended == null) {
                problems.add(AdminError.FieldProblem.of("(body)", "nothing to change: give tier and/or suspended"));
            }
            if (!problems.isEmpty()) return Mono.error(AdminError.invalid("The change is not valid.", problems));
            return tenant(id).flatMap(t -> {
                Tenant next = new Tenant(id, tier != null ? tier : t.tierName(), suspended != null ? suspended : t.suspended());
                Map<String, Object> changed = new LinkedHashMap<>();
                if (!next.tierName().equals(t.tierName())) changed.put("tier", Map.of("from", t.tierName(), "to", next.tierName()));
                if (next.suspended() != t.suspended()) changed.put("suspended", Map.of("from", t.suspended(), "to", next.suspended()));
                return tenants.save(next).then(audit.record(req, "tenant.changed", id, changed))
                        .then(tenants.keys(id).count()).flatMap(n -> ok(AdminViews.tenant(next, n)));
            });
        });
    }

    Mono<ServerResponse> listKeys(ServerRequest req) {
        return tenant(req.pathVariable("id"))
                .flatMap(t -> tenants.keys(t.id()).map(AdminViews::key).collectList())
                .flatMap(keys -> ok(new AdminViews.KeyList(keys)));
    }

    /** Issues a key: the secret is in this response only; the store keeps its hash. */
    Mono<ServerResponse> issueKey(ServerRequest req) {
        String id = req.pathVariable("id");
        return tenant(id).flatMap(t -> {
            String secret = ApiKeys.generate();
            TenantKey key = TenantKey.forSecret(secret, clock.instant());
            AdminViews.IssuedKey body = new AdminViews.IssuedKey(AdminViews.key(key), id, secret,
                    "This is the only time the key is shown: store it now. Sluice keeps only its hash.");
            return tenants.addKey(id, key).then(audit.record(req, "key.issued", id, Map.of("keyId", key.id())))
                    .then(ServerResponse.created(URI.create("/admin/api/tenants/" + id + "/keys/" + key.id()))
                            .header(HttpHeaders.CACHE_CONTROL, "no-store").contentType(MediaType.APPLICATION_JSON).bodyValue(body));
        });
    }

    Mono<ServerResponse> revokeKey(ServerRequest req) {
        String id = req.pathVariable("id");
        String keyId = req.pathVariable("keyId");
        return tenant(id).flatMap(t -> tenants.revokeKey(id, keyId)).flatMap(revoked -> revoked
                ? audit.record(req, "key.revoked", id, Map.of("keyId", keyId)).then(ServerResponse.noContent().build())
                : Mono.error(AdminError.notFound("Key '" + keyId + "' of tenant '" + id + "'")));
    }

    Mono<ServerResponse> usage(ServerRequest req) {
        String id = req.pathVariable("id");
        SluiceConfig snapshot = config.current();
        int hours = AdminRequests.intParam(req, "hours", 6, 1, snapshot.abuse().historyHours());
        long to = ActivityBuffer.minuteOf(clock.millis());
        long from = to - hours * 3_600_000L;
        return tenant(id).flatMap(t -> history.since(id, from).map(AdminViews::point).collectList()
                .flatMap(points -> ok(new Usage(id, t.tierName(), hours, Instant.ofEpochMilli(from).toString(),
                        Instant.ofEpochMilli(to).toString(), snapshot.abuse().threshold(), snapshot.abuse().consecutiveMinutes(), points))));
    }

    /**
     * Every tenant's utilisation series in one answer, for the tenant list's sparklines (one
     * request instead of one per tenant). Compact: per tenant, {@code [minute, utilisation,
     * tokens, pressure]} with the minute counted from {@code from} (pressure, the ceiling signal the
     * detector reads, was added last so older readers of the first three are unaffected); idle
     * minutes have no point.
     */
    Mono<ServerResponse> usageAll(ServerRequest req) {
        SluiceConfig snapshot = config.current();
        int hours = AdminRequests.intParam(req, "hours", 6, 1, snapshot.abuse().historyHours());
        long to = ActivityBuffer.minuteOf(clock.millis());
        long from = to - hours * 3_600_000L;
        return tenants.findAll()
                .flatMapSequential(t -> history.since(t.id(), from).map(s -> List.<Object>of((s.minuteStartMs() - from) / 60_000L,
                                AdminViews.rounded(s.utilisation()), s.tokens(), AdminViews.rounded(s.pressure()))).collectList()
                        .map(points -> new Series(t.id(), t.tierName(), points)), 8)
                .collectList()
                .flatMap(list -> ok(new AllUsage(hours, Instant.ofEpochMilli(from).toString(), Instant.ofEpochMilli(to).toString(),
                        snapshot.abuse().threshold(), snapshot.abuse().consecutiveMinutes(), list)));
    }

    private Mono<Tenant> tenant(String id) {
        return tenants.findById(id).switchIfEmpty(Mono.error(AdminError.notFound("Tenant '" + id + "'")));
    }

    private void checkTier(String tier, List<AdminError.FieldProblem> problems) {
        SluiceConfig c = config.current();
        if (!c.tiers().containsKey(tier)) {
            problems.add(AdminError.FieldProblem.of("tier", "unknown tier '" + tier + "' (known: "
                    + String.join(", ", new TreeSet<>(c.tiers().keySet())) + ")"));
        }
    }

    private static void unknownFields(Map<String, Object> body, Set<String> allowed, List<AdminError.FieldProblem> problems) {
        for (String k : body.keySet()) {
            if (!allowed.contains(k)) problems.add(AdminError.FieldProblem.of(k, "unknown field (expected one of " + new TreeSet<>(allowed) + ")"));
        }
    }

    private static String field(Map<String, Object> body, String name, List<AdminError.FieldProblem> problems) {
        Object v = body.get(name);
        if (v == null) return null;
        if (v instanceof String s && !s.isBlank()) return s.trim();
        problems.add(AdminError.FieldProblem.of(name, "must be a non-empty string"));
        return null;
    }

    private static Boolean flag(Map<String, Object> body, String name, List<AdminError.FieldProblem> problems) {
        Object v = body.get(name);
        if (v == null) return null;
        if (v instanceof Boolean b) return b;
        problems.add(AdminError.FieldProblem.of(name, "must be true or false"));
        return null;
    }

    private static Mono<ServerResponse> ok(Object body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }
}
