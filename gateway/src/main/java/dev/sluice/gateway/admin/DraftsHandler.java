package dev.sluice.gateway.admin;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.UsageHistory;
import dev.sluice.gateway.abuse.UsageSample;
import dev.sluice.gateway.config.ConfigException;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.drafts.DraftShadow;
import dev.sluice.gateway.drafts.Replay;
import dev.sluice.gateway.drafts.TierDraft;
import dev.sluice.gateway.drafts.TierDraftStore;
import dev.sluice.gateway.drafts.WhatIf;
import dev.sluice.gateway.shadow.ShadowLedger;
import dev.sluice.gateway.tiers.TierReloader;
import jakarta.validation.constraints.NotNull;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The tiers draft (issue 28): save, read and delete it, put it in shadow, see what it would
 * have done (from the shadow's decisions, or a replay of the usage history before there are
 * any), and promote it through the same compare-and-set as PUT /tiers.
 */
final class DraftsHandler {
    static final String SHADOW_EXACTNESS = "Counted by the shadow: every live request was also decided against"
            + " the draft (its own windows, the ladder), so these are the draft's decisions on the same traffic.";

    /** POST /tiers/draft/shadow. */
    record ShadowSwitch(
            @NotNull(message = "is required: true or false") Boolean on) {}

    record DraftView(
            long version,
            String etag,
            String author,
            String savedAt,
            boolean shadow,
            String shadowSince,
            String yaml,
            AdminViews.ConfigView config) {}

    record TenantEffectView(String tenant, String tier, Map<String, Long> live, Map<String, Long> draft) {}

    record MinuteView(String minute, long live, long draft) {}

    record WhatIfView(
            String source,
            boolean exact,
            String exactness,
            long draftVersion,
            String from,
            String to,
            int minutes,
            int tenantMinutes,
            Map<String, Long> live,
            Map<String, Long> draft,
            List<TenantEffectView> tenants,
            List<MinuteView> perMinute) {}

    private final AdminContext admin;
    private final TiersHandler tiers;
    private final TierReloader reloader;
    private final TierDraftStore drafts;
    private final DraftShadow shadow;
    private final ShadowLedger ledger;
    private final UsageHistory history;

    DraftsHandler(
            AdminContext admin,
            TiersHandler tiers,
            TierReloader reloader,
            TierDraftStore drafts,
            DraftShadow shadow,
            ShadowLedger ledger,
            UsageHistory history) {
        this.admin = admin;
        this.tiers = tiers;
        this.reloader = reloader;
        this.drafts = drafts;
        this.shadow = shadow;
        this.ledger = ledger;
        this.history = history;
    }

    Mono<ServerResponse> get(ServerRequest req) {
        return drafts.current()
                .switchIfEmpty(Mono.error(new AdminError(
                        HttpStatus.NOT_FOUND, "no_draft", "No draft is saved; PUT /admin/api/tiers/draft saves one.")))
                .flatMap(this::answer);
    }

    /** Saves the document as the draft after the same checks as PUT /tiers; If-Match (the draft's ETag) is optional. */
    Mono<ServerResponse> put(ServerRequest req) {
        List<String> ifMatch = req.headers().header(HttpHeaders.IF_MATCH);
        return Mono.zip(tiers.yamlDocument(req), AdminRequests.adminName(req), expectedVersion(ifMatch))
                .flatMap(t -> tiers.check(t.getT1())
                        .then(drafts.save(
                                t.getT3(), t.getT1(), t.getT2(), admin.clock().instant())))
                .flatMap(outcome -> {
                    if (!outcome.written()) return Mono.error(staleDraft(outcome.draft()));
                    return admin.audit()
                            .record(
                                    req,
                                    "tiers.draft.saved",
                                    "tiers/draft",
                                    new AuditLog.DraftChanged(outcome.draft().version()))
                            .then(shadow.checkOnce())
                            .then(answer(outcome.draft()));
                });
    }

    Mono<ServerResponse> delete(ServerRequest req) {
        List<String> ifMatch = req.headers().header(HttpHeaders.IF_MATCH);
        return drafts.current()
                .switchIfEmpty(Mono.error(new AdminError(HttpStatus.NOT_FOUND, "no_draft", "No draft is saved.")))
                .flatMap(d -> {
                    if (!ifMatch.isEmpty() && !TiersHandler.matches(ifMatch, d.etag()))
                        return Mono.error(staleDraft(d));
                    return drafts.delete(d.version()).flatMap(o -> {
                        if (!o.written()) return Mono.error(staleDraft(o.draft()));
                        return admin.audit()
                                .record(
                                        req,
                                        "tiers.draft.deleted",
                                        "tiers/draft",
                                        new AuditLog.DraftChanged(d.version()))
                                .then(shadow.checkOnce())
                                .then(ServerResponse.noContent().build());
                    });
                });
    }

    Mono<ServerResponse> shadow(ServerRequest req) {
        return admin.bodies()
                .read(req, ShadowSwitch.class)
                .flatMap(body -> existing()
                        .then(drafts.shadow(body.on(), admin.clock().instant()))
                        .flatMap(o -> {
                            if (!o.written()) return Mono.error(noDraft());
                            return admin.audit()
                                    .record(
                                            req,
                                            body.on() ? "tiers.draft.shadow-on" : "tiers.draft.shadow-off",
                                            "tiers/draft",
                                            new AuditLog.DraftShadowSwitched(
                                                    body.on(), o.draft().version()))
                                    .then(shadow.checkOnce())
                                    .then(answer(o.draft()));
                        }));
    }

    /** Applies the draft as PUT /tiers would (If-Match: the LIVE document's ETag), then removes it, ending its shadow. */
    Mono<ServerResponse> promote(ServerRequest req) {
        List<String> ifMatch = req.headers().header(HttpHeaders.IF_MATCH);
        if (ifMatch.isEmpty()) {
            return Mono.error(TiersHandler.ifMatchRequired("Send If-Match with the ETag of the live tiers document"
                    + " (GET /admin/api/tiers): the draft replaces it only if nobody changed it since."));
        }
        return Mono.zip(existing(), AdminRequests.adminName(req))
                .flatMap(t -> tiers.replace(ifMatch, t.getT1().yaml(), t.getT2())
                        .flatMap(r -> drafts.delete(t.getT1().version())
                                // Edited meanwhile: that newer draft stays, out of shadow.
                                .flatMap(o -> o.written()
                                        ? Mono.just(o)
                                        : drafts.shadow(false, admin.clock().instant()))
                                .then(shadow.checkOnce())
                                .then(admin.audit()
                                        .record(
                                                req,
                                                "tiers.draft.promoted",
                                                "tiers",
                                                new AuditLog.DraftPromoted(
                                                        t.getT1().version(),
                                                        r.before().version(),
                                                        r.written().version())))
                                .then(tiers.written(r))));
    }

    /** What the draft would have done over the last {@code minutes} (1..1440, default 60). */
    Mono<ServerResponse> whatIf(ServerRequest req) {
        int minutes = AdminRequests.intParam(req, "minutes", 60, 1, 1440);
        long now = admin.clock().millis();
        long to = ActivityBuffer.minuteOf(now) + 60_000L;
        return drafts.current()
                .switchIfEmpty(Mono.error(new AdminError(
                        HttpStatus.NOT_FOUND, "no_draft", "No draft is saved: there is nothing to preview.")))
                .flatMap(d -> {
                    if (!d.shadow()) return replay(d, minutes, now, to);
                    long from = ActivityBuffer.minuteOf(
                            Math.max(now - minutes * 60_000L, d.shadowSince().toEpochMilli()));
                    return ledger.since(from)
                            .filter(m -> m.draftVersion() == d.version())
                            .collectList()
                            .flatMap(recorded -> recorded.isEmpty()
                                    ? replay(d, minutes, now, to)
                                    : ok(view(
                                            "shadow",
                                            true,
                                            SHADOW_EXACTNESS,
                                            d,
                                            from,
                                            to,
                                            minutes,
                                            WhatIf.of(recorded, from, to))));
                });
    }

    private Mono<ServerResponse> replay(TierDraft d, int minutes, long now, long to) {
        SluiceConfig draft;
        try {
            draft = reloader.parse("tiers draft", d.yaml());
        } catch (ConfigException e) {
            return Mono.error(AdminError.invalidConfig(e.problems()));
        }
        long from = to - minutes * 60_000L;
        // Longer windows need the minutes before the period: the whole history kept (24 h) is read.
        long historyFrom = ActivityBuffer.minuteOf(now) - 24 * 3_600_000L;
        SluiceConfig live = admin.config().current();
        return admin.tenants()
                .findAll()
                .flatMap(
                        t -> history.since(t.id(), historyFrom).collectList().map(points -> Map.entry(t.id(), points)),
                        8)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .map(byTenant -> {
                    Map<String, List<UsageSample>> h = byTenant;
                    return WhatIf.of(Replay.estimate(h, live, draft, d.version(), from), from, to);
                })
                .flatMap(r -> ok(view("replay", false, Replay.EXACTNESS, d, from, to, minutes, r)));
    }

    private static WhatIfView view(
            String source,
            boolean exact,
            String exactness,
            TierDraft d,
            long from,
            long to,
            int minutes,
            WhatIf.Result r) {
        return new WhatIfView(
                source,
                exact,
                exactness,
                d.version(),
                Instant.ofEpochMilli(from).toString(),
                Instant.ofEpochMilli(to).toString(),
                minutes,
                r.tenantMinutes(),
                r.live(),
                r.draft(),
                r.tenants().stream()
                        .map(t -> new TenantEffectView(t.tenant(), t.tier(), t.live(), t.draft()))
                        .toList(),
                r.minutes().stream()
                        .map(m -> new MinuteView(
                                Instant.ofEpochMilli(m.minuteStartMs()).toString(), m.live(), m.draft()))
                        .toList());
    }

    private Mono<ServerResponse> answer(TierDraft d) {
        AdminViews.ConfigView config;
        try {
            config = AdminViews.config(reloader.parse("tiers draft", d.yaml()));
        } catch (ConfigException e) {
            config = null; // saved valid; a replica whose provider override breaks it shows none
        }
        return ServerResponse.ok()
                .eTag(d.etag())
                .header(HttpHeaders.CACHE_CONTROL, "no-cache")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(new DraftView(
                        d.version(),
                        d.etag(),
                        d.author(),
                        d.savedAt().toString(),
                        d.shadow(),
                        d.shadow() ? d.shadowSince().toString() : null,
                        d.yaml(),
                        config));
    }

    private static Mono<ServerResponse> ok(Object body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    /** -1 (any) without If-Match; else the draft's version when the tag names it, or a 412. */
    private Mono<Long> expectedVersion(List<String> ifMatch) {
        if (ifMatch.isEmpty()) return Mono.just(-1L);
        return drafts.current()
                .switchIfEmpty(
                        Mono.error(
                                new AdminError(
                                        HttpStatus.PRECONDITION_FAILED,
                                        "precondition_failed",
                                        "If-Match names a draft, but none is saved now (deleted or promoted). Save without If-Match to start one.")))
                .flatMap(d ->
                        TiersHandler.matches(ifMatch, d.etag()) ? Mono.just(d.version()) : Mono.error(staleDraft(d)));
    }

    private Mono<TierDraft> existing() {
        return drafts.current().switchIfEmpty(Mono.error(noDraft()));
    }

    private static AdminError noDraft() {
        return new AdminError(
                HttpStatus.CONFLICT, "no_draft", "No draft is saved; save one first (PUT /admin/api/tiers/draft).");
    }

    private static AdminError staleDraft(TierDraft current) {
        if (current == null) {
            return new AdminError(
                    HttpStatus.PRECONDITION_FAILED, "precondition_failed", "The draft was deleted since you read it.");
        }
        return new AdminError(
                HttpStatus.PRECONDITION_FAILED,
                "precondition_failed",
                "The draft changed since you read it (now version " + current.version() + " by " + current.author()
                        + "). Read it again and redo your edit on it.",
                List.of(),
                Map.of(HttpHeaders.ETAG, current.etag()));
    }
}
