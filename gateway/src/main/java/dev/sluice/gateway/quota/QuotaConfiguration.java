package dev.sluice.gateway.quota;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.ProviderSettings;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.quota.redis.RedisQuotaStore;
import dev.sluice.gateway.store.RedisConfiguredCondition;
import dev.sluice.gateway.store.RedisWatch;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.scheduler.Schedulers;

@Configuration(proxyBeanMethods = false)
public class QuotaConfiguration {
    private static final Logger log = LoggerFactory.getLogger(QuotaConfiguration.class);

    /** Tests replace it with a fake one. */
    @Bean
    @ConditionalOnMissingBean
    QuotaClock quotaClock() {
        return QuotaClock.system();
    }

    @Bean
    QuotaLimiter quotaLimiter(
            StoreMode mode,
            ObjectProvider<BatchedSettlements> settlements,
            MeterRegistry meters,
            QuotaClock clock,
            StoreProperties store,
            StoreState state,
            ConfigRegistry config) {
        QuotaLimiter limiter = quotaLimiter(mode, settlements, meters, clock, store, state);
        limiter.registerMeters(config.current().tiers().values());
        return limiter;
    }

    private static QuotaLimiter quotaLimiter(
            StoreMode mode,
            ObjectProvider<BatchedSettlements> settlements,
            MeterRegistry meters,
            QuotaClock clock,
            StoreProperties settings,
            StoreState state) {
        Duration timeout = settings.timeout();
        InMemoryQuotaStore local = new InMemoryQuotaStore(clock.clock());
        if (mode == StoreMode.REDIS) {
            QuotaStore batched = settlements.getObject();
            return new QuotaLimiter(
                    batched,
                    local,
                    timeout,
                    meters,
                    state,
                    () -> new InMemoryQuotaStore(clock.clock()),
                    Clock.systemUTC(),
                    clock.clock()); // the spend budgets' periods are read on it (a test's fake clock)
        }
        return new QuotaLimiter(
                local, null, timeout, meters, StoreState.alwaysUp(), null, clock.clock(), clock.clock());
    }

    /**
     * With Redis, the shared windows with their settlements sent in batches, off the request path:
     * admission stays the request's one round trip. Shutdown sends the last batches
     * ({@link dev.sluice.gateway.support.Drainable}), before the provider budget's (unordered).
     */
    @Bean
    @Conditional(RedisConfiguredCondition.class)
    @Order(1)
    BatchedSettlements quotaSettlements(
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            StoreProperties settings,
            StoreState state,
            ObjectProvider<RedisWatch> watch) {
        RedisQuotaStore shared = new RedisQuotaStore(redis.getObject());
        watch.getObject(); // probes Redis once: no warm-up wait when it is down
        if (state.up()) {
            try {
                shared.warmUp().block(settings.startupTimeout());
            } catch (RuntimeException e) { // start anyway: each tier's redis-down policy applies per request
                log.warn(
                        "Redis did not answer at start ({}); requests follow their tier's redis-down policy until it does",
                        e.toString());
            }
        }
        return new BatchedSettlements(
                shared,
                settings.timeout(),
                settings.batch().every(),
                settings.batch().max(),
                Clock.systemUTC(),
                Schedulers.newSingle("sluice-quota-batches", true));
    }

    /** The accuracy meters, on the quota's clock; the settle stage and the abuse sampler feed them too. */
    @Bean
    EnforcementAccuracy enforcementAccuracy(MeterRegistry meters, QuotaClock clock, ConfigRegistry config) {
        EnforcementAccuracy accuracy = new EnforcementAccuracy(meters, clock.clock());
        accuracy.registerMeters(
                config.current().tiers().keySet(),
                config.current().providers().stream()
                        .map(ProviderSettings::name)
                        .toList());
        return accuracy;
    }

    @Bean
    QuotaRefusals quotaRefusals(StageCounter stages, EnforcementAccuracy accuracy) {
        return new QuotaRefusals(stages, accuracy);
    }

    @Bean
    QuotaFilter quotaFilter(QuotaLimiter limiter, QuotaRefusals refusals) {
        return new QuotaFilter(limiter, refusals);
    }
}
