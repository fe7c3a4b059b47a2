package dev.sluice.gateway.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

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
public record StoreProperties(@DefaultValue("500ms") Duration timeout,
                              Duration decisionTimeout,
                              @DefaultValue("2s") Duration startupTimeout,
                              @DefaultValue("500ms") Duration probeInterval,
                              @DefaultValue("30s") Duration knownKeysRefresh,
                              @DefaultValue RedisDown redisDown,
                              @DefaultValue Batch batch) {
    /**
     * The default decision budget. A request that meets a stalled Redis pays one store timeout
     * (500 ms) before the store is marked down; 750 ms leaves a slow but answering Redis room for
     * two or three calls, and the rest of the gateway's work, under a second.
     */
    public static final Duration DEFAULT_DECISION_TIMEOUT = Duration.ofMillis(750);

    public StoreProperties {
        Checks.positive("sluice.store.timeout", timeout);
        if (decisionTimeout == null) {
            decisionTimeout = timeout.compareTo(DEFAULT_DECISION_TIMEOUT) > 0 ? timeout : DEFAULT_DECISION_TIMEOUT;
        }
        Checks.positive("sluice.store.decision-timeout", decisionTimeout);
        if (decisionTimeout.compareTo(timeout) < 0) {
            // Every call would then be cut short by the budget, and a cut call does not mark Redis down:
            // each request would pay its whole budget until the probe noticed.
            throw new IllegalArgumentException("sluice.store.decision-timeout must be at least sluice.store.timeout ("
                    + Checks.show(timeout) + "), was " + Checks.show(decisionTimeout));
        }
        Checks.positive("sluice.store.startup-timeout", startupTimeout);
        Checks.positive("sluice.store.probe-interval", probeInterval);
        Checks.positive("sluice.store.known-keys-refresh", knownKeysRefresh);
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
    public record Batch(@DefaultValue("50ms") Duration every, @DefaultValue("64") int max) {
        public Batch {
            Checks.within("sluice.store.batch.every", every, Duration.ofSeconds(1));
            if (every.toMillis() < 1) {
                throw new IllegalArgumentException("sluice.store.batch.every must be at least 1ms, was " + Checks.show(every));
            }
            Checks.atLeast("sluice.store.batch.max", max, 1);
        }
    }

    /**
     * @param replicas the most replicas that may run at once: while Redis is out each spends the
     *                 provider's limits divided by this (chart: autoscaling.maxReplicas, else
     *                 replicaCount; SLUICE_STORE_REDIS_DOWN_REPLICAS)
     */
    public record RedisDown(@DefaultValue("4") int replicas) {
        public RedisDown {
            Checks.atLeast("sluice.store.redis-down.replicas", replicas, 1);
        }
    }
}
