package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.abuse.ReviewAction;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.config.ConfigRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * Abuse flags and their review. A decision (dismiss, confirm-suspend, confirm-move-tier)
 * closes the flag first (compare-and-set: of two reviewers, one wins and the other gets 409),
 * then acts on the tenant; each review keeps who, when, the note and the tier moved to.
 */
final class FlagsHandler {
    private static final Logger log = LoggerFactory.getLogger(FlagsHandler.class);
    private static final Set<String> REVIEW_FIELDS = Set.of("action", "note", "tier");

    private final FlagStore flags;
    private final TenantStore tenants;
    private final AuditLog audit;
    private final ConfigRegistry config;
    private final Clock clock;

    FlagsHandler(FlagStore flags, TenantStore tenants, ConfigRegistry config, Clock clock, AuditLog audit) {
        this.audit = audit;
        this.flags = flags;
        this.tenants = tenants;
        this.config = config;
        this.clock = clock;
    }

    Mono<ServerResponse> list(ServerRequest req) {
        String raw = req.queryParam("status").orElse("open").trim();
        FlagStatus status = raw.equals("all") ? null : FlagStatus.of(raw);
        if (status == null && !raw.equals("all")) {
            return Mono.error(AdminError.invalid("status", "must be open, dismissed, confirmed or all, got '" + raw + "'"));
        }
        int limit = AdminRequests.intParam(req, "limit", 100, 1, 1000);
        return flags.list(status, limit).map(AdminViews::flag).collectList()
                .flatMap(list -> ok(new AdminViews.FlagList(list)));
    }

    Mono<ServerResponse> get(ServerRequest req) {
        String id = req.pathVariable("id");
        return flags.find(id).switchIfEmpty(Mono.error(AdminError.notFound("Flag '" + id + "'")))
                .flatMap(f -> ok(AdminViews.flag(f)));
    }

    Mono<ServerResponse> review(ServerRequest req) {
        String id = req.pathVariable("id");
        return Mono.zip(AdminRequests.jsonObject(req), AdminRequests.adminName(req)).flatMap(t -> {
            FlagReview review = validate(t.getT1(), t.getT2());
            return flags.find(id).switchIfEmpty(Mono.error(AdminError.notFound("Flag '" + id + "'")))
                    .flatMap(found -> flags.update(id, f -> {
                        try {
                            return f.reviewed(review);
                        } catch (IllegalStateException e) {
                            throw new AdminError(HttpStatus.CONFLICT, "flag_closed", e.getMessage());
                        }
                    }))
                    .flatMap(f -> act(f, review).thenReturn(f))
                    .flatMap(f -> {
                        log.info("Flag {} of tenant {}: {} by {}{}", f.id(), f.tenantId(), review.action().wire(), review.by(),
                                review.tier() == null ? "" : " (to tier " + review.tier() + ")");
                        Map<String, Object> details = new LinkedHashMap<>();
                        details.put("flag", f.id());
                        details.put("review", review.action().wire());
                        if (review.tier() != null) details.put("tier", review.tier());
                        return audit.record(req, "flag.reviewed", f.tenantId(), details).then(ok(AdminViews.flag(f)));
                    });
        });
    }

    private FlagReview validate(Map<String, Object> body, String by) {
        List<AdminError.FieldProblem> problems = new ArrayList<>();
        for (String k : body.keySet()) {
            if (!REVIEW_FIELDS.contains(k)) problems.add(AdminError.FieldProblem.of(k, "unknown field (expected one of [action, note, tier])"));
        }
        String actions = String.join(", ", Arrays.stream(ReviewAction.values()).map(ReviewAction::wire).toList());
        Object rawAction = body.get("action");
        ReviewAction action = rawAction instanceof String s ? ReviewAction.of(s.trim()) : null;
        if (action == null) problems.add(AdminError.FieldProblem.of("action", rawAction == null ? "is required (" + actions + ")"
                : "must be one of " + actions + ", got '" + rawAction + "'"));
        Object rawNote = body.get("note");
        String note = rawNote instanceof String s ? s.strip() : "";
        if (rawNote != null && !(rawNote instanceof String)) problems.add(AdminError.FieldProblem.of("note", "must be a string"));
        else if (note.length() > 2000) problems.add(AdminError.FieldProblem.of("note", "must be at most 2000 characters"));
        if ((action == ReviewAction.DISMISS || action == ReviewAction.COMMENT) && note.isEmpty()) {
            problems.add(AdminError.FieldProblem.of("note", "is required to " + action.wire() + ": say why, for whoever looks next"));
        }
        Object rawTier = body.get("tier");
        String tier = rawTier instanceof String s && !s.isBlank() ? s.trim() : null;
        if (action == ReviewAction.CONFIRM_MOVE_TIER) {
            if (tier == null) problems.add(AdminError.FieldProblem.of("tier", "is required to confirm-move-tier: the tier to move the tenant to"));
            else if (!config.current().tiers().containsKey(tier)) {
                problems.add(AdminError.FieldProblem.of("tier", "unknown tier '" + tier + "' (known: "
                        + String.join(", ", new TreeSet<>(config.current().tiers().keySet())) + ")"));
            }
        } else if (rawTier != null && action != null) {
            problems.add(AdminError.FieldProblem.of("tier", "is only given with confirm-move-tier"));
        }
        if (!problems.isEmpty()) return throwInvalid(problems);
        return new FlagReview(by, clock.instant(), action, note, action == ReviewAction.CONFIRM_MOVE_TIER ? tier : null);
    }

    private static FlagReview throwInvalid(List<AdminError.FieldProblem> problems) {
        throw AdminError.invalid("The review is not valid.", problems);
    }

    /** What the decision does to the tenant. */
    private Mono<Void> act(Flag flag, FlagReview review) {
        return switch (review.action()) {
            case CONFIRM_SUSPEND -> change(flag.tenantId(), t -> new Tenant(t.id(), t.tierName(), true));
            case CONFIRM_MOVE_TIER -> change(flag.tenantId(), t -> new Tenant(t.id(), review.tier(), t.suspended()));
            case DISMISS, COMMENT -> Mono.empty();
        };
    }

    private Mono<Void> change(String tenantId, UnaryOperator<Tenant> f) {
        return tenants.findById(tenantId)
                .switchIfEmpty(Mono.error(new AdminError(HttpStatus.CONFLICT, "tenant_gone",
                        "The flag was closed but tenant '" + tenantId + "' no longer exists.")))
                .flatMap(t -> tenants.save(f.apply(t)));
    }

    private static Mono<ServerResponse> ok(Object body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

}
