package dev.sluice.gateway.dispatch;

import dev.sluice.gateway.api.PendingWork;
import dev.sluice.gateway.api.ShutdownDrain;
import dev.sluice.gateway.api.StageCounter;
import dev.sluice.gateway.config.CalibrationProperties;
import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.DispatchProperties;
import dev.sluice.gateway.config.FairShareProperties;
import dev.sluice.gateway.config.SliceProperties;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.config.UpstreamProperties;
import dev.sluice.gateway.dispatch.budget.FallbackProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.ProviderClock;
import dev.sluice.gateway.dispatch.budget.ReplicaLeases;
import dev.sluice.gateway.dispatch.budget.memory.InMemoryProviderBudgetStore;
import dev.sluice.gateway.dispatch.budget.redis.RedisProviderBudgetStore;
import dev.sluice.gateway.dispatch.calibration.CalibrationStore;
import dev.sluice.gateway.dispatch.calibration.ProviderCalibration;
import dev.sluice.gateway.dispatch.calibration.TokenCalibration;
import dev.sluice.gateway.dispatch.calibration.memory.InMemoryCalibrationStore;
import dev.sluice.gateway.dispatch.calibration.redis.RedisCalibrationStore;
import dev.sluice.gateway.dispatch.queue.LaneShare;
import dev.sluice.gateway.dispatch.queue.LaneSharing;
import dev.sluice.gateway.dispatch.queue.redis.RedisLaneShare;
import dev.sluice.gateway.dispatch.upstream.UpstreamTargets;
import dev.sluice.gateway.dispatch.upstream.UpstreamTimeouts;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

@Configuration(proxyBeanMethods = false)
public class DispatchConfiguration {
    /**
     * The provider's budgets run on real time whatever clock the tenant quota is given: they
     * mirror limits the provider enforces on its own clock, with pauses it dictates. Only the
     * lab's scenario runner replaces it, for a gateway whose provider runs on the same faster clock.
     */
    @Bean
    @ConditionalOnMissingBean
    ProviderClock providerClock() {
        return ProviderClock.system();
    }

    /**
     * In memory, the budget itself (no round trip to save). With Redis, this replica's slices of
     * the shared budget ({@link ReplicaLeases}) over Redis, or over this replica's share while
     * Redis is out; shutdown sends the slices' last settlements and gives them back (they are
     * {@link dev.sluice.gateway.support.Drainable}: {@link ShutdownDrain.FlushBatches}).
     */
    @Bean
    ProviderBudgetStore providerBudgetStore(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            ProviderClock clock,
            StoreState state,
            MeterRegistry meters,
            StoreProperties settings,
            SliceProperties slices) {
        if (mode != StoreMode.REDIS) return new InMemoryProviderBudgetStore(clock.clock());
        ProviderBudgetStore shared = new FallbackProviderBudgetStore(
                new RedisProviderBudgetStore(redis.getObject()),
                clock.clock(),
                state,
                settings.timeout(),
                settings.redisDown().replicas(),
                meters);
        if (!slices.enabled()) return shared;
        return new ReplicaLeases(
                shared,
                slices.horizon(),
                slices.slotTtl(),
                settings.batch().every(),
                settings.batch().max(),
                clock.clock(),
                Schedulers.newSingle("sluice-slices", true));
    }

    /** Shared by every replica through Redis; failures are {@link ProviderCalibration}'s to absorb (own ratio). */
    @Bean
    ProviderCalibration providerCalibration(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            ProviderClock clock,
            MeterRegistry meters,
            StoreProperties store,
            CalibrationProperties settings) {
        CalibrationStore shared =
                mode == StoreMode.REDIS ? new RedisCalibrationStore(redis.getObject()) : new InMemoryCalibrationStore();
        TokenCalibration.Settings s = new TokenCalibration.Settings(
                settings.defaultRatio(),
                settings.minRatio(),
                settings.maxRatio(),
                settings.fastSamples(),
                settings.smoothing());
        return new ProviderCalibration(
                shared, s, settings.syncEvery(), settings.maxAge(), store.timeout(), clock.clock(), meters);
    }

    /** The one thread every dispatcher's queue lives on. */
    @Bean(destroyMethod = "dispose")
    Scheduler dispatchLoop() {
        return Schedulers.newSingle("sluice-dispatch", true);
    }

    @Bean
    Dispatchers dispatchers(
            ProviderBudgetStore store,
            ConfigRegistry config,
            Scheduler dispatchLoop,
            MeterRegistry meters,
            ProviderClock clock,
            PendingWork pending,
            DispatchProperties settings,
            ProviderCalibration calibration) {
        Dispatchers dispatchers =
                new Dispatchers(store, config, settings, clock.clock(), dispatchLoop, meters, pending, calibration);
        dispatchers.createConfigured();
        return dispatchers;
    }

    /** The fair queues' counters shared across replicas through Redis; with the in-memory store (one replica), nothing. */
    @Bean
    LaneSharing laneSharing(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            Dispatchers dispatchers,
            StoreState state,
            FairShareProperties settings,
            DispatchProperties dispatch,
            ProviderClock clock) {
        LaneShare share = mode == StoreMode.REDIS && settings.enabled() ? new RedisLaneShare(redis.getObject()) : null;
        if (share != null) dispatchers.shareLanes();
        return new LaneSharing(
                dispatchers::all,
                share,
                state::up,
                settings.every(),
                settings.ttl(),
                dispatch.storeTimeout(),
                clock.clock());
    }

    @Bean
    UpstreamTimeouts upstreamTimeouts(UpstreamProperties settings) {
        return new UpstreamTimeouts(settings.streamIdleTimeout(), settings.bodyTimeout());
    }

    @Bean
    DispatchFilter dispatchFilter(
            Dispatchers dispatchers,
            MeterRegistry meters,
            StageCounter stages,
            ProviderClock clock,
            UpstreamTimeouts timeouts,
            RequestRewriter rewriter,
            UpstreamTargets targets) {
        return new DispatchFilter(dispatchers, clock.clock(), meters, stages, timeouts, rewriter, targets);
    }
}
