package dev.sluice.gateway.store;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The shared store's state for /actuator/health and readiness, read from {@link StoreState}
 * with no I/O, so it answers at once whatever Redis does (Boot's own Redis check sends a
 * command and hung with Redis paused). Redis down is {@code DEGRADED}, answered with HTTP 200:
 * each tier's redis-down policy still serves, so the replica stays in the Service.
 */
public final class StoreHealthIndicator implements HealthIndicator {
    public static final Status DEGRADED =
            new Status("DEGRADED", "Redis does not answer; each tier's redis-down policy decides");

    private final StoreState state;
    private final StoreMode mode;

    public StoreHealthIndicator(StoreState state, StoreMode mode) {
        this.state = state;
        this.mode = mode;
    }

    @Override
    public Health health() {
        if (mode == StoreMode.MEMORY)
            return Health.up().withDetail("store", "memory").build();
        if (state.up()) return Health.up().withDetail("store", "redis").build();
        return Health.status(DEGRADED)
                .withDetail("store", "redis")
                .withDetail("downSinceMs", state.downSinceMs())
                .build();
    }
}
