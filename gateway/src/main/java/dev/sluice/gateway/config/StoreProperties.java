package dev.sluice.gateway.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the gateway waits on the shared store (Redis) and what it does while Redis is out
 * ({@code sluice.store.*}, docs/operations.md). Unused when no Redis is configured.
 *
 * @param timeout          longest wait for Redis on the request path before the tier's redis-down
 *                         policy answers (chart: storeTimeout, SLUICE_STORE_TIMEOUT)
 * @param decisionTimeout  longest one request waits on Redis in all before it is decided: each of its store
 *                         calls (key lookup, quota, the ladder's second ask, ownership, provider budget) waits
 *                         at most {@code timeout} or what is left of this, and a stage with nothing left applies
 *                         its Redis-down policy at once. At least {@code timeout}, so a request's first call
 *                         can always find Redis gone; unset, 750ms (or {@code timeout} if longer)
 * @param startupTimeout   longest wait for Redis at start (probe, seeding the tiers document and the
 *                         demo tenants); past it the gateway starts on its redis-down policies
 * @param probeInterval    how often each replica probes Redis (one EXISTS), to find it gone, back, or
 *                         emptied, without a request waiting to find out
 * @param knownKeysRefresh how often, while Redis answers, a replica reloads its copy of the key hashes
 *                         (what it answers key lookups from while Redis is out); rounded to whole probes
 * @param redisDown        how the provider's limits are shared while Redis is out
 * @param batch            how settlements are sent to Redis: together, off the response path
 */
@ConfigurationProperties("sluice.store")
@Validated
// Else every call is cut short by the budget, and a cut call never marks Redis down: each request pays its whole
// budget.
@NotLessThan(value = "decisionTimeout", other = "timeout")
public record StoreProperties(
        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("500ms")
        Duration timeout,

        @DurationMin(nanos = 0, inclusive = false) Duration decisionTimeout,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("2s")
        Duration startupTimeout,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("500ms")
        Duration probeInterval,

        @DurationMin(nanos = 0, inclusive = false) @DefaultValue("30s")
        Duration knownKeysRefresh,

        @Valid @DefaultValue RedisDown redisDown,
        @Valid @DefaultValue Batch batch) {
    /**
     * The default decision budget. A request that meets a stalled Redis pays one store timeout
     * (500 ms) before the store is marked down; 750 ms leaves a slow but answering Redis room for
     * two or three calls, and the rest of the gateway's work, under a second.
     */
    public static final Duration DEFAULT_DECISION_TIMEOUT = Duration.ofMillis(750);

    public StoreProperties {
        if (decisionTimeout == null && timeout != null) {
            decisionTimeout = timeout.compareTo(DEFAULT_DECISION_TIMEOUT) > 0 ? timeout : DEFAULT_DECISION_TIMEOUT;
        }
        redisDown = redisDown == null ? new RedisDown(4) : redisDown;
        batch = batch == null ? new Batch(Duration.ofMillis(50), 64) : batch;
    }

    /**
     * Settlements (a served call's usage against its estimate, a provider budget's releases and
     * corrections) wait up to {@code every}, or until {@code max} of one tenant or one budget wait,
     * and go to Redis together in one call: one round trip per batch instead of one per request.
     * A crash loses what waits (docs/operations.md says what that costs).
     *
     * @param every how long a settlement may wait (at most 1s). 50 ms: at 250 calls a second a batch holds
     *              about 12 settlements, so a served call costs its admission and about 0.16 more script calls
     * @param max   this many waiting settlements go at once
     */
    public record Batch(
            @DurationMin(millis = 1) @DurationMax(seconds = 1) @DefaultValue("50ms")
            Duration every,

            @Min(1) @DefaultValue("64") int max) {}

    /**
     * @param replicas the most replicas that may run at once: while Redis is out each spends the
     *                 provider's limits divided by this (chart: autoscaling.maxReplicas, else
     *                 replicaCount; SLUICE_STORE_REDIS_DOWN_REPLICAS)
     */
    public record RedisDown(@Min(1) @DefaultValue("4") int replicas) {}
}
