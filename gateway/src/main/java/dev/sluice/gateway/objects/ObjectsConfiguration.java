package dev.sluice.gateway.objects;

import dev.sluice.gateway.config.SluiceProperties;
import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.config.SurfaceProperties;
import dev.sluice.gateway.estimate.RequestRewriter;
import dev.sluice.gateway.estimate.TokenEstimator;
import dev.sluice.gateway.objects.memory.InMemoryObjectOwnership;
import dev.sluice.gateway.objects.redis.RedisObjectOwnership;
import dev.sluice.gateway.store.StoreMode;
import dev.sluice.gateway.store.StoreState;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** The ownership stage and its store: Redis when configured (shared by replicas), this process's memory otherwise. */
@Configuration(proxyBeanMethods = false)
public class ObjectsConfiguration {
    @Bean
    ObjectOwnership objectOwnership(
            StoreMode mode,
            ObjectProvider<ReactiveStringRedisTemplate> redis,
            StoreState state,
            StoreProperties settings) {
        return mode == StoreMode.REDIS
                ? new RedisObjectOwnership(redis.getObject(), state, settings.timeout())
                : new InMemoryObjectOwnership();
    }

    @Bean
    ObjectOwnershipFilter objectOwnershipFilter(
            ObjectOwnership store,
            TokenEstimator estimator,
            RequestRewriter rewriter,
            SluiceProperties props,
            SurfaceProperties surface) {
        // A batch file is read whole to be estimated, within the upload limit the surface enforces. The surface
        // cuts a body at its limit and answers 413 once the rest is drained; this stage's bound, a byte above,
        // only backs it up (at the same bound it would answer first, mid-upload, and the client see a reset).
        long backstop = surface.maxFileBytes().toBytes() + 1;
        return new ObjectOwnershipFilter(
                store,
                new BatchFileEstimator(estimator, rewriter),
                Math.toIntExact(props.maxRequestBytes().toBytes()),
                (int) Math.min(Integer.MAX_VALUE, backstop));
    }
}
