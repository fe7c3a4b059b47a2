package dev.sluice.gateway.abuse;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import dev.sluice.gateway.abuse.memory.InMemoryTenantActivity;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.abuse.memory.LocalSamplerLock;
import dev.sluice.gateway.abuse.redis.RedisFlagStore;
import dev.sluice.gateway.abuse.redis.RedisSamplerLock;
import dev.sluice.gateway.abuse.redis.RedisTenantActivity;
import dev.sluice.gateway.abuse.redis.RedisUsageHistory;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.AbuseProperties;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.support.LoopLifecycle;
import dev.sluice.gateway.tenant.TenantStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.UUID;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** Abuse detection: activity recording (called by the request path), the per-minute sampler, flags. */
@Configuration(proxyBeanMethods = false)
public class AbuseConfiguration {
    static final String NAMESPACE = "sluice";

    @Bean
    TenantActivity tenantActivity(
            StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis, QuotaClock quotaClock) {
        return mode == StoreMode.REDIS
                ? new RedisTenantActivity(redis.getObject(), NAMESPACE, quotaClock.clock())
                : new InMemoryTenantActivity(quotaClock.clock());
    }

    /** What the request path's stages did, counted once for the metric and the tenant's activity. */
    @Bean
    StageCounter stageCounter(MeterRegistry meters, TenantActivity activity, ConfigRegistry config) {
        return new StageCounter(meters, activity, config.current().tiers().keySet());
    }

    @Bean
    UsageHistory usageHistory(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis) {
        return mode == StoreMode.REDIS
                ? new RedisUsageHistory(redis.getObject(), NAMESPACE)
                : new InMemoryUsageHistory();
    }

    @Bean
    FlagStore flagStore(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis, AbuseProperties settings) {
        return mode == StoreMode.REDIS
                ? new RedisFlagStore(redis.getObject(), NAMESPACE, settings.closedFlagRetention())
                : new InMemoryFlagStore();
    }

    @Bean
    SamplerLock samplerLock(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis) {
        return mode == StoreMode.REDIS ? new RedisSamplerLock(redis.getObject(), NAMESPACE) : new LocalSamplerLock();
    }

    @Bean
    AbuseSampler abuseSampler(
            TenantActivity activity,
            QuotaLimiter quota,
            UsageHistory history,
            FlagStore flags,
            TenantStore tenants,
            ConfigRegistry config,
            QuotaClock quotaClock,
            MeterRegistry meters) {
        return new AbuseSampler(activity, quota, history, flags, tenants, config::current, quotaClock.clock(), meters);
    }

    @Bean
    AbuseScheduler abuseScheduler(
            AbuseSampler sampler,
            SamplerLock lock,
            TenantActivity activity,
            QuotaClock quotaClock,
            AbuseProperties settings) {
        return new AbuseScheduler(
                sampler, lock, activity, quotaClock.clock(), "replica-" + UUID.randomUUID(), settings.settle());
    }

    @Bean
    OpenFlagsGauge openFlagsGauge(FlagStore flags, MeterRegistry meters) {
        return new OpenFlagsGauge(flags, meters);
    }

    /**
     * Ships activity (Redis) every second, ticks the sampler and refreshes the open-flags gauge;
     * {@code sluice.abuse.sampler.enabled=false} turns the sampler off.
     */
    @Bean
    SmartLifecycle abuseLifecycle(
            TenantActivity activity, AbuseScheduler scheduler, OpenFlagsGauge openFlags, AbuseProperties settings) {
        return new LoopLifecycle(
                () -> {
                    if (activity instanceof RedisTenantActivity redis) redis.start(settings.shipInterval());
                    if (settings.sampler().enabled()) scheduler.start(settings.tick());
                    openFlags.start(settings.openFlagsInterval());
                },
                () -> {
                    openFlags.stop();
                    scheduler.stop();
                    if (activity instanceof RedisTenantActivity redis) redis.stop();
                });
    }
}
