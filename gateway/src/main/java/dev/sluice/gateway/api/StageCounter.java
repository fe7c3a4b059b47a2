package dev.sluice.gateway.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts what the request path did with a request, in the two places that read it: the
 * {@code sluice.decisions} metric (per tier and {@link Stage}) and the tenant's activity, from
 * which its usage series and the abuse signal are built.
 */
public final class StageCounter {
    /** Tagged {@code tier} and {@code stage}. */
    public static final String DECISIONS = "sluice.decisions";

    private static final Stage[] STAGES = Stage.values();
    private final MeterRegistry meters;
    private final RequestActivity activity;
    /** Each tier's counters by stage, looked up once instead of on every request. */
    private final Map<String, Counter[]> byTier = new ConcurrentHashMap<>();

    /**
     * @param tiers the tiers configured at start: their counters exist at zero from the start, so
     *              Prometheus sees each tier's first decision of a kind as an increase (a counter
     *              born at 1 is missed by increase()). A tier added later by an edit gets its
     *              counters at its first request.
     */
    public StageCounter(MeterRegistry meters, RequestActivity activity, Collection<String> tiers) {
        this.meters = meters;
        this.activity = activity;
        for (String tier : tiers) byTier.computeIfAbsent(tier, this::countersOf);
    }

    public void count(String tenantId, String tier, Stage stage) {
        byTier.computeIfAbsent(tier, this::countersOf)[stage.ordinal()].increment();
        activity.stageTaken(tenantId, stage.label());
    }

    private Counter[] countersOf(String tier) {
        Counter[] counters = new Counter[STAGES.length];
        for (Stage stage : STAGES) {
            counters[stage.ordinal()] = meters.counter(DECISIONS, "tier", tier, "stage", stage.label());
        }
        return counters;
    }
}
