package dev.sluice.gateway.drafts;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.shadow.ShadowMinute;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a draft would have done, summed from per tenant-minute decisions (the shadow's, or the
 * replay's estimate): totals live against draft per stage, the ten tenants most affected, and
 * live against draft refusals per minute. A pure function of its input.
 */
public final class WhatIf {
    /** The stages compared, in the order the console shows them. */
    public static final List<String> STAGES =
            List.of(Stage.PASSED.label(), Stage.DELAYED.label(), Stage.DOWNGRADED.label(), Stage.REJECTED.label());

    static final int TOP = 10;

    /** One tenant's counts over the period, live and under the draft. */
    public record TenantEffect(String tenant, String tier, Map<String, Long> live, Map<String, Long> draft) {}

    /** One minute, every tenant summed: refusals live and under the draft. */
    public record MinuteRefusals(long minuteStartMs, long live, long draft) {}

    public record Result(
            Map<String, Long> live,
            Map<String, Long> draft,
            List<TenantEffect> tenants,
            List<MinuteRefusals> minutes,
            int tenantMinutes) {}

    private WhatIf() {}

    /**
     * Sums the minutes starting in {@code [fromMs, toMs)}. {@code minutes} lists every minute of
     * that span (none recorded: zeros), so a chart's axis is the period asked for.
     */
    public static Result of(List<ShadowMinute> recorded, long fromMs, long toMs) {
        Map<String, Long> live = zeros();
        Map<String, Long> draft = zeros();
        Map<String, TenantEffect> byTenant = new HashMap<>();
        TreeMap<Long, long[]> perMinute = new TreeMap<>();
        long first = Math.floorDiv(fromMs + 59_999L, 60_000L) * 60_000L; // the first minute starting in the span
        for (long m = first; m < toMs; m += 60_000L) perMinute.put(m, new long[2]);
        int counted = 0;
        for (ShadowMinute m : recorded) {
            if (m.minuteStartMs() < fromMs || m.minuteStartMs() >= toMs) continue;
            counted++;
            add(live, m.live());
            add(draft, m.draft());
            TenantEffect t =
                    byTenant.computeIfAbsent(m.tenantId(), id -> new TenantEffect(id, m.tier(), zeros(), zeros()));
            add(t.live(), m.live());
            add(t.draft(), m.draft());
            long[] refusals = perMinute.computeIfAbsent(m.minuteStartMs(), k -> new long[2]);
            refusals[0] += m.live().getOrDefault(Stage.REJECTED.label(), 0L);
            refusals[1] += m.draft().getOrDefault(Stage.REJECTED.label(), 0L);
        }
        List<TenantEffect> affected = new ArrayList<>();
        for (TenantEffect t : byTenant.values()) if (!t.live().equals(t.draft())) affected.add(t);
        affected.sort(Comparator.comparingLong((TenantEffect t) -> -increase(t, Stage.REJECTED))
                .thenComparingLong(t -> -increase(t, Stage.DOWNGRADED))
                .thenComparingLong(t -> -increase(t, Stage.DELAYED))
                .thenComparing(TenantEffect::tenant));
        List<MinuteRefusals> minutes = new ArrayList<>();
        perMinute.forEach((m, r) -> minutes.add(new MinuteRefusals(m, r[0], r[1])));
        return new Result(
                live, draft, List.copyOf(affected.subList(0, Math.min(TOP, affected.size()))), minutes, counted);
    }

    private static long increase(TenantEffect t, Stage s) {
        return t.draft().get(s.label()) - t.live().get(s.label());
    }

    private static Map<String, Long> zeros() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String s : STAGES) m.put(s, 0L);
        return m;
    }

    private static void add(Map<String, Long> into, Map<String, Long> counts) {
        for (String s : STAGES) into.merge(s, counts.getOrDefault(s, 0L), Long::sum);
    }
}
