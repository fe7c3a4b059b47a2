package dev.sluice.gateway.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.gateway.config.Money;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.tenant.Tenant;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every change made through the admin API: who (the admin's name and address), when, and what
 * changed, as one JSON line on the {@code sluice.audit} logger (route it to its own appender
 * to keep it), and the last {@value #KEPT} entries of this replica for
 * {@code GET /admin/api/audit}. A key's secret never appears: a key is named by its id.
 */
public final class AuditLog {
    public static final String LOGGER = "sluice.audit";
    static final int KEPT = 500;
    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One change, as logged and as listed: who, from where, when, what and to what. */
    record Entry(String at, String actor, String address, String action, String target, Details details) {}

    /** {@code GET /admin/api/audit}'s answer. */
    record Recent(List<Entry> entries) {}

    /** What a change did, one record per kind of change: never a key's secret. */
    sealed interface Details {}

    record TenantCreated(String tier, boolean suspended) implements Details {}

    /** Only what changed: a change that asked for what the tenant already was has no field. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record TenantChanged(
            Change<String> tier, Change<Boolean> suspended, Change<String> spend, Change<String> organisation)
            implements Details {
        static TenantChanged between(Tenant before, Tenant after) {
            return new TenantChanged(
                    before.tierName().equals(after.tierName())
                            ? null
                            : new Change<>(before.tierName(), after.tierName()),
                    before.suspended() == after.suspended()
                            ? null
                            : new Change<>(before.suspended(), after.suspended()),
                    Objects.equals(before.spend(), after.spend())
                            ? null
                            : new Change<>(described(before.spend()), described(after.spend())),
                    Objects.equals(before.organisation(), after.organisation())
                            ? null
                            : new Change<>(before.organisation(), after.organisation()));
        }

        /** A spend override as the audit reads it: "usd-per-day 1.00, usd-per-month 20.00, UTC"; "the tier's" for none. */
        static String described(SpendBudget b) {
            if (b == null) return "the tier's";
            return "usd-per-day " + (b.dayMicros() == 0 ? "the tier's" : Money.plain(b.dayMicros()))
                    + ", usd-per-month " + (b.monthMicros() == 0 ? "the tier's" : Money.plain(b.monthMicros()))
                    + ", " + b.zone().getId();
        }
    }

    record Change<T>(T from, T to) {}

    /** A key issued or revoked, named by its id. */
    record Key(String keyId) implements Details {}

    /** A key's own caps and expiry as they became (issued with them, or changed). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record KeyCaps(String keyId, Long tokensPerMinute, String usdPerDay, String expiresAt) implements Details {
        static KeyCaps of(dev.sluice.gateway.tenant.TenantKey k) {
            return new KeyCaps(
                    k.id(),
                    k.tokensPerMinute() > 0 ? k.tokensPerMinute() : null,
                    k.usdPerDayMicros() > 0 ? Money.plain(k.usdPerDayMicros()) : null,
                    k.expiresAt() == null ? null : k.expiresAt().toString());
        }
    }

    /** An organisation as it became (created, or changed), or as it was (deleted). */
    record OrganisationSaved(String name, String windows, String spend) implements Details {
        static OrganisationSaved of(dev.sluice.gateway.tenant.Organisation o) {
            return new OrganisationSaved(
                    o.name(),
                    o.windows().stream()
                            .map(w -> w.name() + " " + w.seconds() + "s " + w.tokens() + " tokens"
                                    + (w.requests() == Long.MAX_VALUE ? "" : " " + w.requests() + " requests"))
                            .collect(java.util.stream.Collectors.joining(", ")),
                    o.spend().capped() ? TenantChanged.described(o.spend()).replace("the tier's", "none") : "none");
        }
    }

    record TiersReplaced(long fromVersion, long toVersion) implements Details {}

    /** {@code tier} only for a review that moves the tenant. */
    record FlagReviewed(
            String flag,
            String review,
            @JsonInclude(JsonInclude.Include.NON_NULL) String tier) implements Details {}

    // ---- the tiers draft (issue 28) ----

    /** A draft saved or deleted, by its version. */
    record DraftChanged(long draftVersion) implements Details {}

    /** Shadow turned on or off for a draft. */
    record DraftShadowSwitched(boolean on, long draftVersion) implements Details {}

    /** A draft made the live document: the live versions before and after. */
    record DraftPromoted(long draftVersion, long fromVersion, long toVersion) implements Details {}

    private final Clock clock;
    private final Deque<Entry> recent = new ArrayDeque<>();

    public AuditLog(Clock clock) {
        this.clock = clock;
    }

    /** Records a change the request made; {@code details} say what (values, versions, ids). */
    Mono<Void> record(ServerRequest request, String action, String target, Details details) {
        return AdminRequests.adminName(request)
                .doOnNext(actor -> {
                    Entry entry = new Entry(
                            clock.instant().toString(),
                            actor,
                            request.remoteAddress().map(AuditLog::host).orElse("unknown"),
                            action,
                            target,
                            details);
                    log.info(JSON.writeValueAsString(entry));
                    synchronized (recent) {
                        recent.addFirst(entry);
                        if (recent.size() > KEPT) recent.removeLast();
                    }
                })
                .then();
    }

    /** This replica's latest entries, newest first. */
    List<Entry> recent(int limit) {
        synchronized (recent) {
            return new ArrayList<>(recent).subList(0, Math.min(limit, recent.size()));
        }
    }

    private static String host(InetSocketAddress a) {
        return a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    }
}
