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
 * @param startupTimeout   longest wait for Redis at start (probe, seeding the tiers document and the
 *                         demo tenants); past it the gateway starts on its redis-down policies
 * @param probeInterval    how often each replica probes Redis (one EXISTS), to find it gone, back, or
 *                         emptied, without a request waiting to find out
 * @param knownKeysRefresh how often, while Redis answers, a replica reloads its copy of the key hashes
 *                         (what it answers key lookups from while Redis is out); rounded to whole probes
 * @param redisDown        how the provider's limits are shared while Redis is out
 */
@ConfigurationProperties("sluice.store")
public record StoreProperties(@DefaultValue("500ms") Duration timeout,
                              @DefaultValue("2s") Duration startupTimeout,
                              @DefaultValue("500ms") Duration probeInterval,
                              @DefaultValue("30s") Duration knownKeysRefresh,
                              @DefaultValue RedisDown redisDown) {
    public StoreProperties {
        Checks.positive("sluice.store.timeout", timeout);
        Checks.positive("sluice.store.startup-timeout", startupTimeout);
        Checks.positive("sluice.store.probe-interval", probeInterval);
        Checks.positive("sluice.store.known-keys-refresh", knownKeysRefresh);
        redisDown = redisDown == null ? new RedisDown(4) : redisDown;
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
