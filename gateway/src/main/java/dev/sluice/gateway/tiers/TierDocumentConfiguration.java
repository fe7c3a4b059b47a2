package dev.sluice.gateway.tiers;

import dev.sluice.gateway.config.ConfigRegistry;
import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.config.TiersLoader;
import dev.sluice.gateway.quota.QuotaClock;
import dev.sluice.gateway.store.RedisWatch;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import dev.sluice.gateway.support.LoopLifecycle;
import dev.sluice.gateway.tiers.redis.RedisTierDocumentStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.event.RefreshRoutesEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * The tiers document shared by replicas: tiers.yaml seeds the store at first start; edits
 * (admin API) are written there and every replica polls for them.
 */
@Configuration(proxyBeanMethods = false)
public class TierDocumentConfiguration {

    @Bean
    TierDocumentStore tierDocumentStore(
            StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis, QuotaClock quotaClock) {
        return mode == StoreMode.REDIS
                ? new RedisTierDocumentStore(redis.getObject(), "sluice", quotaClock.clock())
                : new InMemoryTierDocumentStore(quotaClock.clock());
    }

    @Bean
    TierReloader tierReloader(
            TierDocumentStore store,
            ConfigRegistry registry,
            SluiceProperties props,
            MeterRegistry meters,
            ApplicationEventPublisher events,
            ObjectProvider<RedisWatch> watch,
            StoreState state,
            StoreProperties storeSettings) {
        Duration startupTimeout = storeSettings.startupTimeout();
        TierReloader reloader = new TierReloader(
                store,
                registry,
                props.provider().url(),
                meters,
                changed -> events.publishEvent(new RefreshRoutesEvent(changed)));
        TiersLoader.Source seed = TiersLoader.locate(props.tiersPath());
        RedisWatch w = watch.getIfAvailable(); // probes Redis once, before anything waits on it
        // Redis down at start: skip the wait; the seed's config is in force and the watch seeds Redis later.
        reloader.start(seed.yaml(), seed.name(), state.up() ? startupTimeout : Duration.ZERO);
        if (w != null) w.addSeeder("tiers document", reloader::restoreInForce);
        return reloader;
    }

    /** Polls for edits made on other replicas; with one in-memory instance there is nothing to poll. */
    @Bean
    SmartLifecycle tierReloadPolling(TierReloader reloader, StoreMode mode, SluiceProperties props) {
        Duration interval = props.tiers().pollInterval();
        return new LoopLifecycle(
                () -> {
                    if (mode == StoreMode.REDIS) reloader.startPolling(interval);
                },
                reloader::stop);
    }
}
