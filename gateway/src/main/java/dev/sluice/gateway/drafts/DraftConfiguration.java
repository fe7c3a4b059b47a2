package dev.sluice.gateway.drafts;

import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.drafts.redis.RedisTierDraftStore;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.support.LoopLifecycle;
import dev.sluice.gateway.tiers.TierReloader;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The tiers draft shared by replicas, and the shadow each replica reads from it (issue 28). */
@Configuration(proxyBeanMethods = false)
public class DraftConfiguration {

    @Bean
    TierDraftStore tierDraftStore(StoreMode mode, ObjectProvider<ReactiveStringRedisTemplate> redis) {
        return mode == StoreMode.REDIS
                ? new RedisTierDraftStore(redis.getObject(), "sluice")
                : new InMemoryTierDraftStore();
    }

    /** The {@code ShadowTiers} the request path decides the draft with; parsed as the live document is. */
    @Bean
    DraftShadow draftShadow(TierDraftStore store, TierReloader reloader) {
        return new DraftShadow(store, reloader::parse);
    }

    /** Polls for drafts changed on other replicas (and, on Redis, the one in shadow at start). */
    @Bean
    SmartLifecycle draftShadowPolling(DraftShadow shadow, StoreMode mode, SluiceProperties props) {
        return new LoopLifecycle(
                () -> {
                    if (mode == StoreMode.REDIS)
                        shadow.startPolling(props.tiers().pollInterval());
                },
                shadow::stop);
    }
}
