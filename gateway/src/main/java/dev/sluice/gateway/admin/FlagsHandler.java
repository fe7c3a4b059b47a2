package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminResponses.ok;

import dev.sluice.gateway.abuse.Flag;
import dev.sluice.gateway.abuse.FlagReview;
import dev.sluice.gateway.abuse.FlagStatus;
import dev.sluice.gateway.abuse.FlagStore;
import dev.sluice.gateway.tenant.Tenant;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
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

    private final AdminContext admin;
    private final FlagStore flags;

    FlagsHandler(AdminContext admin, FlagStore flags) {
        this.admin = admin;
        this.flags = flags;
    }

    Mono<ServerResponse> list(ServerRequest req) {
        String raw = req.queryParam("status").orElse("open").trim();
        FlagStatus status = raw.equals("all") ? null : FlagStatus.of(raw);
        if (status == null && !raw.equals("all")) {
            return Mono.error(
                    AdminError.invalid("status", "must be open, dismissed, confirmed or all, got '" + raw + "'"));
        }
        int limit = AdminRequests.intParam(req, "limit", 100, 1, 1000);
        return flags.list(status, limit)
                .map(AbuseViews::flag)
                .collectList()
                .flatMap(list -> ok(new AbuseViews.FlagList(list)));
    }

    Mono<ServerResponse> get(ServerRequest req) {
        String id = req.pathVariable("id");
        return flags.find(id)
                .switchIfEmpty(Mono.error(AdminError.notFound("Flag '" + id + "'")))
                .flatMap(f -> ok(AbuseViews.flag(f)));
    }

    Mono<ServerResponse> review(ServerRequest req) {
        String id = req.pathVariable("id");
        Mono<AdminBodies.Review> body = admin.bodies().read(req, AdminBodies.Review.class, "The review is not valid.");
        return Mono.zip(body, AdminRequests.adminName(req)).flatMap(t -> {
            FlagReview review = t.getT1().by(t.getT2(), admin.clock().instant());
            return flags.find(id)
                    .switchIfEmpty(Mono.error(AdminError.notFound("Flag '" + id + "'")))
                    .flatMap(found -> flags.update(id, f -> {
                        try {
                            return f.reviewed(review);
                        } catch (IllegalStateException e) {
                            throw new AdminError(HttpStatus.CONFLICT, "flag_closed", e.getMessage());
                        }
                    }))
                    .flatMap(f -> act(f, review).thenReturn(f))
                    .flatMap(f -> {
                        log.info(
                                "Flag {} of tenant {}: {} by {}{}",
                                f.id(),
                                f.tenantId(),
                                review.action().wire(),
                                review.by(),
                                review.tier() == null ? "" : " (to tier " + review.tier() + ")");
                        AuditLog.FlagReviewed details = new AuditLog.FlagReviewed(
                                f.id(), review.action().wire(), review.tier());
                        return admin.audit()
                                .record(req, "flag.reviewed", f.tenantId(), details)
                                .then(ok(AbuseViews.flag(f)));
                    });
        });
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
        return admin.tenants()
                .findById(tenantId)
                .switchIfEmpty(Mono.error(new AdminError(
                        HttpStatus.CONFLICT,
                        "tenant_gone",
                        "The flag was closed but tenant '" + tenantId + "' no longer exists.")))
                .flatMap(t -> admin.tenants().save(f.apply(t)));
    }
}
