package dev.sluice.gateway.admin;

import static dev.sluice.gateway.admin.AdminResponses.ok;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.sluice.gateway.config.SpendBudget;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.QuotaScope;
import dev.sluice.gateway.spend.LedgerDay;
import dev.sluice.gateway.spend.LedgerRange;
import dev.sluice.gateway.spend.SpendCsv;
import dev.sluice.gateway.spend.SpendLedger;
import dev.sluice.gateway.spend.SpendViews;
import dev.sluice.gateway.tenant.Organisation;
import dev.sluice.gateway.tenant.OrganisationStore;
import dev.sluice.gateway.tenant.Tenant;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A tenant's or an organisation's spend against its budgets with its daily ledger, and the ledger's CSV export. */
final class SpendHandler {
    static final MediaType CSV = MediaType.parseMediaType("text/csv;charset=UTF-8");

    /**
     * What a tenant's and an organisation's spend answers both end with: the budgets now and the ledger's days.
     *
     * @param timeZone   the zone the budgets' periods turn in (null when none is capped)
     * @param budgets    each spend budget now (its cap, used, remaining, when it turns); empty when none is capped
     * @param ledgerZone the ledger's days are UTC days
     * @param series     every day of the range, oldest first, a day without spend at zero
     */
    record BudgetsAndLedger(
            String timeZone,
            List<SpendViews.BudgetView> budgets,
            String ledgerZone,
            int days,
            SpendViews.TotalsView totals,
            List<SpendViews.DayView> series) {
        /** @param spend the budgets that apply (null or uncapped: none) */
        static BudgetsAndLedger of(
                SpendBudget spend, List<SpendViews.BudgetView> budgets, LedgerRange range, List<LedgerDay> rows) {
            return new BudgetsAndLedger(
                    spend == null || !spend.capped() ? null : spend.zone().getId(),
                    budgets,
                    "UTC",
                    range.days(),
                    SpendViews.totals(range, rows),
                    SpendViews.series(range, rows));
        }
    }

    record Spend(String tenant, String tier, @JsonUnwrapped BudgetsAndLedger spend) {}

    /**
     * An organisation's spend: its own budgets now and the ledger summed over its current members.
     *
     * @param members the tenants whose ledger rows the series sums (today's members: one that left took its rows)
     */
    record OrganisationSpend(
            String organisation,
            List<String> members,
            @JsonUnwrapped BudgetsAndLedger spend) {}

    private final AdminContext admin;
    private final QuotaLimiter limiter;
    private final SpendLedger ledger;
    private final OrganisationStore organisations;

    SpendHandler(AdminContext admin, QuotaLimiter limiter, SpendLedger ledger, OrganisationStore organisations) {
        this.admin = admin;
        this.limiter = limiter;
        this.ledger = ledger;
        this.organisations = organisations;
    }

    /** {@code GET /admin/api/tenants/{id}/spend?days=30}: budgets peeked (nothing charged) and the ledger's days. */
    Mono<ServerResponse> tenant(ServerRequest req) {
        String id = req.pathVariable("id");
        int days = AdminRequests.intParam(req, "days", 30, 1, SpendLedger.KEPT_DAYS);
        long now = admin.clock().millis();
        LedgerRange range = LedgerRange.lastDays(LedgerRange.dayOf(now), days);
        return admin.tenants()
                .findById(id)
                .switchIfEmpty(Mono.error(AdminError.notFound("Tenant '" + id + "'")))
                .flatMap(t -> {
                    Tier tier = admin.config().current().tier(t.tierName()).orElse(null);
                    Mono<List<SpendViews.BudgetView>> budgets = budgets(t, tier);
                    Mono<List<LedgerDay>> rows =
                            ledger.days(id, range.from(), range.to()).collectList();
                    return Mono.zip(budgets, rows)
                            .flatMap(b -> ok(new Spend(
                                    id,
                                    t.tierName(),
                                    BudgetsAndLedger.of(
                                            tier == null ? null : t.spendUnder(tier), b.getT1(), range, b.getT2()))));
                });
    }

    /**
     * {@code GET /admin/api/organisations/{id}/spend?days=30}: its own budgets peeked (nothing charged) and the
     * daily series summed over its current members' ledger rows.
     */
    Mono<ServerResponse> organisation(ServerRequest req) {
        String id = req.pathVariable("id");
        int days = AdminRequests.intParam(req, "days", 30, 1, SpendLedger.KEPT_DAYS);
        long now = admin.clock().millis();
        LedgerRange range = LedgerRange.lastDays(LedgerRange.dayOf(now), days);
        return organisations
                .findById(id)
                .switchIfEmpty(Mono.error(AdminError.notFound("Organisation '" + id + "'")))
                .flatMap(o -> admin.tenants()
                        .findAll()
                        .filter(t -> id.equals(t.organisation()))
                        .map(Tenant::id)
                        .sort()
                        .collectList()
                        .flatMap(members -> Mono.zip(
                                        budgets(o),
                                        Flux.fromIterable(members)
                                                // A few members' reads at a time: the series adds rows up by day, so
                                                // their order does not matter.
                                                .flatMap(m -> ledger.days(m, range.from(), range.to()), 8)
                                                .collectList())
                                .flatMap(b -> ok(new OrganisationSpend(
                                        id, members, BudgetsAndLedger.of(o.spend(), b.getT1(), range, b.getT2()))))));
    }

    /** The organisation's own budgets, as {@code GET /organisations/{id}/usage} peeks them. */
    private Mono<List<SpendViews.BudgetView>> budgets(Organisation o) {
        QuotaScope scope = QuotaScope.organisation(o, limiter.periodsNowMs());
        if (scope.spends().isEmpty()) return Mono.just(List.of());
        return limiter.peek(scope)
                .map(d -> SpendViews.budgets(d.spends(), d.nowMs()))
                .onErrorMap(e -> !(e instanceof AdminError), e -> storeUnavailable());
    }

    private static AdminError storeUnavailable() {
        return new AdminError(
                HttpStatus.SERVICE_UNAVAILABLE,
                "store_unavailable",
                "The quota store did not answer; the budgets cannot be read now.");
    }

    /** Each budget's turn is read from the decision's own instant, to which its {@code resetMs} is relative. */
    private Mono<List<SpendViews.BudgetView>> budgets(Tenant t, Tier tier) {
        if (tier == null || !t.spendUnder(tier).capped()) return Mono.just(List.of());
        return limiter.peekTenantLevel(t, tier, null)
                .map(d -> SpendViews.budgets(d.spends(), d.nowMs()))
                .onErrorMap(e -> !(e instanceof AdminError), e -> storeUnavailable());
    }

    /**
     * {@code GET /admin/api/usage/export?month=YYYY-MM} or {@code ?from=YYYY-MM-DD&to=YYYY-MM-DD}
     * (inclusive, at most 400 days): one CSV row per tenant per UTC day with spend.
     */
    Mono<ServerResponse> export(ServerRequest req) {
        LedgerRange range;
        try {
            range = LedgerRange.parse(
                    req.queryParam("month").orElse(null),
                    req.queryParam("from").orElse(null),
                    req.queryParam("to").orElse(null));
        } catch (IllegalArgumentException e) {
            return Mono.error(new AdminError(
                    HttpStatus.BAD_REQUEST, "invalid_range", "Bad export range: " + e.getMessage() + "."));
        }
        String name = "sluice-usage-" + range.from() + "_" + range.to() + ".csv";
        // The organisation column is each tenant's organisation at export time, not when the row was spent.
        Mono<Map<String, String>> organisationOf = admin.tenants()
                .findAll()
                .filter(t -> t.organisation() != null)
                .collectMap(Tenant::id, Tenant::organisation);
        return Mono.zip(ledger.all(range.from(), range.to()).collectList(), organisationOf)
                .timeout(Duration.ofSeconds(60))
                .flatMap(r -> ServerResponse.ok()
                        .contentType(CSV)
                        .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"" + name + "\"")
                        .header(HttpHeaders.CACHE_CONTROL, "no-store")
                        .bodyValue(SpendCsv.write(r.getT1(), r.getT2())));
    }
}
