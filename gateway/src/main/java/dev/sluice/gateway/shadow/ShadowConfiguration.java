package dev.sluice.gateway.shadow;

import dev.sluice.gateway.degrade.DegradationLadder;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.shadow.memory.InMemoryShadowLedger;
import dev.sluice.gateway.shadow.redis.RedisShadowLedger;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.scheduler.Schedulers;

/** The shadow stage: the draft in shadow decides every live request too, apart, and the what-if ledger records both. */
@Configuration(proxyBeanMethods = false)
public class ShadowConfiguration {
    /** How often a replica adds its shadow counts to the shared ledger. */
    static final Duration FLUSH_EVERY = Duration.ofSeconds(5);

    @Bean
    ShadowLedgerStore shadowLedger(
            StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis, QuotaClock clock) {
        return mode == StoreMode.REDIS
                ? new RedisShadowLedger(redis.getObject(), clock.clock())
                : new InMemoryShadowLedger(clock.clock());
    }

    @Bean(destroyMethod = "close")
    ShadowRecorder shadowRecorder(ShadowLedgerStore ledger, MeterRegistry meters, QuotaClock clock) {
        return new ShadowRecorder(ledger, meters, clock.clock(), FLUSH_EVERY);
    }

    @Bean
    ShadowFilter shadowFilter(
            ObjectProvider<ShadowTiers> tiers, QuotaLimiter limiter, ShadowRecorder recorder, StoreState state) {
        ShadowEvaluator evaluator =
                new ShadowEvaluator(limiter.apart(), new DegradationLadder(), Schedulers.parallel());
        return new ShadowFilter(() -> tiers.getIfAvailable(() -> ShadowTiers.NONE), evaluator, recorder, state);
    }
}
