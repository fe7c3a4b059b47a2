package dev.sluice.gateway.admin;

import dev.sluice.gateway.admin.AdminViews.SpendView;
import dev.sluice.gateway.admin.AdminViews.WindowView;
import dev.sluice.gateway.quota.QuotaDecision;
import dev.sluice.gateway.quota.QuotaScope;
import dev.sluice.gateway.tenant.Organisation;
import java.math.BigDecimal;
import java.util.List;

/** The organisations' answers, as {@link AdminViews} writes the others: records Jackson writes in their order. */
final class OrganisationViews {
    private OrganisationViews() {}

    /** An organisation: its shared windows and budgets (left out where none) and its member tenants. */
    record OrganisationView(
            String id,
            String name,
            List<WindowView> windows,

            @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
            SpendView spend,

            List<String> members) {}

    record OrganisationList(List<OrganisationView> organisations) {}

    /** One shared window now: requests null where the window caps only tokens. */
    record WindowUsageView(
            String name,
            long seconds,
            long limitTokens,
            Long limitRequests,
            long usedTokens,
            long usedRequests,
            double utilisation,
            long resetMs) {}

    /** One spend budget's period now, in USD. */
    record SpendUsageView(
            String period,
            String label,
            BigDecimal limitUsd,
            BigDecimal usedUsd,
            BigDecimal remainingUsd,
            double utilisation,
            long resetMs) {}

    /** An organisation's windows and budgets as they stand, peeked (nothing charged). */
    record OrganisationUsage(String id, String at, List<WindowUsageView> windows, List<SpendUsageView> spend) {}

    static OrganisationView organisation(Organisation o, List<String> members) {
        return new OrganisationView(
                o.id(),
                o.name(),
                o.windows().stream()
                        .map(w -> new WindowView(w.name(), w.seconds(), w.tokens(), w.requests()))
                        .toList(),
                SpendView.of(o.spend()),
                members);
    }

    static OrganisationUsage organisationUsage(Organisation o, String at, QuotaDecision d) {
        return new OrganisationUsage(
                o.id(),
                at,
                d.windows().stream()
                        .map(w -> new WindowUsageView(
                                QuotaScope.baseName(w.name()),
                                w.seconds(),
                                w.limitTokens(),
                                w.limitRequests() == Long.MAX_VALUE ? null : w.limitRequests(),
                                w.usedTokens(),
                                w.usedRequests(),
                                AdminViews.rounded(w.utilisation()),
                                w.resetMs()))
                        .toList(),
                d.spends().stream()
                        .map(sp -> new SpendUsageView(
                                sp.period(),
                                QuotaScope.baseName(sp.name()).substring(("spend:" + sp.period() + ":").length()),
                                AdminViews.usd(sp.limitMicros()),
                                AdminViews.usd(sp.usedMicros()),
                                AdminViews.usd(sp.remainingMicros()),
                                AdminViews.rounded(sp.utilisation()),
                                sp.resetMs()))
                        .toList());
    }
}
