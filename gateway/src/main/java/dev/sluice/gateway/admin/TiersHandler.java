package dev.sluice.gateway.admin;

import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tiers.TierDocument;
import dev.sluice.gateway.tiers.TierDocumentStore;
import dev.sluice.gateway.tiers.TierReloader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The tiers document: read (YAML and JSON, with its ETag), validate without saving, and
 * replace guarded by If-Match. A replacement is applied here at once and reaches the other
 * replicas through the store within their poll interval.
 */
final class TiersHandler {
    private final AdminContext admin;
    private final TierDocumentStore store;
    private final TierReloader reloader;

    TiersHandler(AdminContext admin, TierDocumentStore store, TierReloader reloader) {
        this.admin = admin;
        this.store = store;
        this.reloader = reloader;
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return current().flatMap(doc -> {
            SluiceConfig parsed;
            try {
                parsed = reloader.parse("stored tiers", doc.yaml());
            } catch (ConfigException e) {
                parsed = null; // shown as null; appliedHere tells the replica kept an older one
            }
            return ServerResponse.ok()
                    .eTag(doc.etag())
                    .header(HttpHeaders.CACHE_CONTROL, "no-cache")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(AdminViews.document(doc, parsed, reloader.appliedVersion()));
        });
    }

    Mono<ServerResponse> validate(ServerRequest req) {
        return yamlDocument(req)
                .flatMap(this::check)
                .flatMap(parsed -> ServerResponse.ok()
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(
                                new AdminViews.Validated(true, AdminViews.summary(parsed), AdminViews.config(parsed))));
    }

    Mono<ServerResponse> put(ServerRequest req) {
        List<String> ifMatch = req.headers().header(HttpHeaders.IF_MATCH);
        if (ifMatch.isEmpty()) {
            return Mono.error(
                    ifMatchRequired(
                            "Send If-Match with the ETag of the document you edited (GET /admin/api/tiers), so nobody's edit is lost."));
        }
        return Mono.zip(yamlDocument(req), AdminRequests.adminName(req))
                .flatMap(t -> replace(ifMatch, t.getT1(), t.getT2()))
                .flatMap(r -> admin.audit()
                        .record(
                                req,
                                "tiers.replaced",
                                "tiers",
                                new AuditLog.TiersReplaced(
                                        r.before().version(), r.written().version()))
                        .then(written(r)));
    }

    /** What a replacement did: the document it replaced, the one written, and that one's config. */
    record Replaced(TierDocument before, TierDocument written, SluiceConfig parsed) {}

    /**
     * Replaces the live document with {@code yaml} if {@code ifMatch} names the current one, after
     * the same checks as a validation, and applies it here: the one path of PUT /tiers and of a
     * draft's promotion. 412 when the document moved, 422 with every problem when {@code yaml} is bad.
     */
    Mono<Replaced> replace(List<String> ifMatch, String yaml, String author) {
        return current().flatMap(doc -> {
            if (!matches(ifMatch, doc.etag())) return Mono.error(stale(doc));
            return check(yaml)
                    .flatMap(parsed -> store.replace(doc.version(), yaml, author)
                            .flatMap(outcome -> {
                                if (!outcome.written()) return Mono.error(stale(outcome.document()));
                                reloader.install(outcome.document(), parsed);
                                return Mono.just(new Replaced(doc, outcome.document(), parsed));
                            }));
        });
    }

    /** The answer to a replacement: the document written, with its ETag. */
    Mono<ServerResponse> written(Replaced r) {
        return ServerResponse.ok()
                .eTag(r.written().etag())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(AdminViews.document(r.written(), r.parsed(), reloader.appliedVersion()));
    }

    static AdminError ifMatchRequired(String message) {
        return new AdminError(HttpStatus.PRECONDITION_REQUIRED, "precondition_required", message);
    }

    /** A YAML document: the body itself (application/yaml) or the {@code yaml} field of a JSON object. */
    Mono<String> yamlDocument(ServerRequest req) {
        MediaType type = req.headers().contentType().orElse(null);
        if (AdminRequests.isYaml(type)) return req.bodyToMono(String.class).defaultIfEmpty("");
        if (AdminRequests.isJson(type)) {
            return admin.bodies().read(req, AdminBodies.TiersDocument.class).map(AdminBodies.TiersDocument::yaml);
        }
        return Mono.error(new AdminError(
                HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "Send the tiers document as application/yaml, or as JSON {\"yaml\": \"...\"}."));
    }

    Mono<TierDocument> current() {
        return store.current()
                .switchIfEmpty(Mono.error(new AdminError(
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "no_document",
                        "No tiers document is stored yet; the gateway seeds it at start.")));
    }

    static boolean matches(List<String> ifMatch, String etag) {
        for (String header : ifMatch) {
            for (String tag : header.split(",")) {
                String t = tag.trim();
                if (t.equals("*") || t.equals(etag)) return true;
            }
        }
        return false;
    }

    private static AdminError stale(TierDocument current) {
        return new AdminError(
                HttpStatus.PRECONDITION_FAILED,
                "precondition_failed",
                "The tiers document changed since you read it (now version " + current.version() + " by "
                        + current.updatedBy() + "). Read it again, redo your edit on it, and send its ETag.",
                List.of(),
                Map.of(HttpHeaders.ETAG, current.etag()));
    }

    /**
     * Parses as the gateway would apply it, then checks what only the live system knows: no
     * tenant may be left on a tier the document removes.
     */
    Mono<SluiceConfig> check(String yaml) {
        SluiceConfig parsed;
        try {
            parsed = reloader.parse("tiers document", yaml);
        } catch (ConfigException e) {
            return Mono.error(AdminError.invalidConfig(e.problems()));
        }
        return admin.tenants()
                .findAll()
                .filter(tn -> !parsed.tiers().containsKey(tn.tierName()))
                .collectList()
                .flatMap(orphans -> {
                    if (orphans.isEmpty()) return Mono.just(parsed);
                    Map<String, List<String>> byTier = new TreeMap<>();
                    for (Tenant tn : orphans)
                        byTier.computeIfAbsent(tn.tierName(), k -> new ArrayList<>())
                                .add(tn.id());
                    List<AdminError.FieldProblem> problems = new ArrayList<>();
                    byTier.forEach((tier, ids) -> problems.add(AdminError.FieldProblem.of(
                            "tiers." + tier,
                            "is removed but tenants are on it ("
                                    + String.join(", ", ids.subList(0, Math.min(10, ids.size())))
                                    + (ids.size() > 10 ? ", …" : "") + "): move them to another tier first")));
                    return Mono.error(AdminError.invalid(
                            "The document removes tiers that tenants are on; nothing was changed.", problems));
                });
    }
}
