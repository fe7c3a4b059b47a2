package dev.sluice.gateway.abuse;

import java.util.Map;

/**
 * One minute of activity: the tenants seen (with the tier each was served under) and, per
 * tenant, the count of each stage taken. A tenant may have stages without a request seen
 * (a stage counted by another replica after the minute turned); the sampler reads both.
 * {@code pressureByTenant} holds, per tenant, the {@link Pressure} counters of the quota's answers.
 */
public record MinuteActivity(
        long minuteStartMs,
        Map<String, String> tierByTenant,
        Map<String, Map<String, Long>> stagesByTenant,
        Map<String, Map<String, Long>> pressureByTenant) {
    public MinuteActivity {
        if (minuteStartMs % 60_000 != 0) throw new IllegalArgumentException("a minute starts on a whole minute");
        tierByTenant = Map.copyOf(tierByTenant);
        stagesByTenant = Map.copyOf(stagesByTenant);
        pressureByTenant = Map.copyOf(pressureByTenant);
    }

    public MinuteActivity(
            long minuteStartMs, Map<String, String> tierByTenant, Map<String, Map<String, Long>> stagesByTenant) {
        this(minuteStartMs, tierByTenant, stagesByTenant, Map.of());
    }

    public Map<String, Long> pressure(String tenantId) {
        return pressureByTenant.getOrDefault(tenantId, Map.of());
    }

    public Map<String, Long> stages(String tenantId) {
        return stagesByTenant.getOrDefault(tenantId, Map.of());
    }

    public boolean isEmpty() {
        return tierByTenant.isEmpty() && stagesByTenant.isEmpty() && pressureByTenant.isEmpty();
    }
}
