package dev.sluice.gateway.spend;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.spend.memory.InMemorySpendLedger;
import dev.sluice.gateway.spend.redis.RedisSpendLedger;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.support.LoopLifecycle;
import dev.sluice.gateway.tenant.TenantStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Spend seen by operators and tenants: the ledger (fed by the settle stage), the tenant's
 * {@code GET /v1/sluice/usage}, and the spend meters.
 */
@Configuration(proxyBeanMethods = false)
public class SpendConfiguration {
    static final String NAMESPACE = "sluice";
    /** How often a replica ships its ledger rows: what a crash of it can lose. */
    static final Duration SHIP_INTERVAL = Duration.ofSeconds(1);

    static final Duration GAUGE_INTERVAL = Duration.ofMinutes(1);

    @Bean
    SpendLedger spendLedger(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis, QuotaClock clock) {
        return mode == StoreMode.REDIS
                ? new RedisSpendLedger(redis.getObject(), NAMESPACE, Duration.ofSeconds(2))
                : new InMemorySpendLedger(clock.clock());
    }

    @Bean
    UsageFilter sluiceUsageFilter(QuotaLimiter limiter, SpendLedger ledger, QuotaClock clock) {
        return new UsageFilter(limiter, ledger, clock.clock());
    }

    @Bean
    SpendRefusalsMeter spendRefusalsMeter(MeterRegistry meters, ConfigRegistry config) {
        SpendRefusalsMeter meter = new SpendRefusalsMeter(meters);
        meter.registerMeters(config.current().tiers().keySet());
        return meter;
    }

    @Bean
    BudgetGauges spendBudgetGauges(
            TenantStore tenants, QuotaLimiter limiter, ConfigRegistry config, MeterRegistry meters) {
        return new BudgetGauges(tenants, limiter, config, meters);
    }

    /** Ships the ledger every second (Redis; the shutdown's flush is {@code Drainable}'s) and samples the gauges. */
    @Bean
    SmartLifecycle spendLifecycle(SpendLedger ledger, BudgetGauges gauges) {
        return new LoopLifecycle(
                () -> {
                    if (ledger instanceof RedisSpendLedger redis) redis.start(SHIP_INTERVAL);
                    gauges.start(GAUGE_INTERVAL);
                },
                () -> {
                    gauges.stop();
                    if (ledger instanceof RedisSpendLedger redis) redis.stop();
                });
    }
}
