package dev.sluice.gateway.shadow;

import java.util.Map;

/**
 * One tenant's decisions in one minute, live and under the draft in shadow: stage label
 * ({@code passed}, {@code downgraded}, {@code delayed}, {@code rejected}, as {@code Stage.label()})
 * to count. {@code draftVersion} names the draft they were decided against.
 */
public record ShadowMinute(
        long minuteStartMs,
        String tenantId,
        String tier,
        long draftVersion,
        Map<String, Long> live,
        Map<String, Long> draft) {
    public ShadowMinute {
        live = Map.copyOf(live);
        draft = Map.copyOf(draft);
    }
}
