package dev.sluice.gateway.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * The JSON shape of {@code GET /admin/api/overview}, as records Jackson writes in their
 * components' order, as {@link AdminViews} holds the rest of the admin API's. A map only where
 * its keys are data (a stage, a status, why a call was tried again); a record for each fixed
 * object. Figures are rounded where they are made; a null says no sample or no such setting.
 */
final class OverviewViews {
    private OverviewViews() {}

    record Overview(
            String at,
            String startedAt,
            long windowSeconds,
            long coveredSeconds,
            Counts decisions,
            WaitP95 queueWaitP95Ms,
            WaitEstimate waitEstimate,
            List<Budget> budgets,
            Spend spend,
            Counts upstream,
            Long openFlags,
            List<Provider> providers) {}

    /** Counts by a key that is data, over the overview's last minute and since this replica started. */
    record Counts(Map<String, Long> lastMinute, Map<String, Long> sinceStart) {}

    /** The queue wait's p95 in milliseconds; null without samples. */
    record WaitP95(Double lastMinute, Double sinceStart) {}

    /** Actual wait over the door's estimate; p50 and p95 null without samples. */
    record WaitEstimate(Double p50, Double p95, long samples) {}

    /** One provider budget (provider and model); provider and model null where its meters do not say. */
    record Budget(
            String budget,
            String provider,
            String model,
            Utilisation utilisation,
            long inFlight,
            long concurrencyLimit,
            Integer maxInFlight,
            long queueDepth,
            long pausedForMs,
            WaitP95 queueWaitP95Ms,
            WaitEstimate waitEstimate,
            Double pricePerMillionTokens,
            double tokenRatio) {}

    /** Input and output apart only where the provider limits them so: left out, not null, elsewhere. */
    record Utilisation(
            double tokens,
            double requests,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double inputTokens,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double outputTokens) {}

    record Spend(
            double usdLastMinute,
            double usdSinceStart,
            long tokensLastMinute,
            long tokensSinceStart,
            String priceSource) {}

    /** {@code retries}: by why a call was tried again (a push-back's status, or failover). */
    record Provider(
            String name,
            String host,
            String state,
            String circuit,
            long pausedForMs,
            Double shareLastMinute,
            Counts answers,
            Counts retries,
            List<Budget> budgets) {}
}
