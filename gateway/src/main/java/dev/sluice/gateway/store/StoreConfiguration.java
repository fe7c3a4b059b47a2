package dev.sluice.gateway.store;

import dev.sluice.gateway.config.StoreProperties;
import dev.sluice.gateway.support.LoopLifecycle;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** Says once, at start, where shared state lives: a named Redis, or this process's memory. */
@Configuration(proxyBeanMethods = false)
public class StoreConfiguration {
    private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

    @Bean
    StoreMode storeMode(Environment env) {
        return RedisConfiguredCondition.isConfigured(env) ? StoreMode.REDIS : StoreMode.MEMORY;
    }

    /** Down until the first probe answers: nothing on the request path waits to find out. */
    @Bean
    StoreState storeState(StoreMode mode) {
        return mode == StoreMode.REDIS ? new StoreState(false, System::currentTimeMillis) : StoreState.alwaysUp();
    }

    /** One per request, taken at authentication: how long its store calls may wait in all. */
    @Bean
    DecisionBudgets decisionBudgets(StoreProperties settings) {
        return DecisionBudgets.of(settings.decisionTimeout());
    }

    /**
     * Created (and probed once, within the start-up timeout) before anything that seeds Redis
     * at start: those skip Redis when this probe found it down, and the watch seeds it later.
     */
    @Bean
    @Conditional(RedisConfiguredCondition.class)
    RedisWatch redisWatch(
            ReactiveStringRedisTemplate redis, StoreState state, MeterRegistry meters, StoreProperties settings) {
        RedisWatch watch = new RedisWatch(redis, state, settings.timeout(), meters);
        if (!watch.probeNow(settings.startupTimeout())) {
            log.warn(
                    "Redis did not answer at start: starting anyway; each tier's redis-down policy answers until it does");
        }
        return watch;
    }

    @Bean
    @Conditional(RedisConfiguredCondition.class)
    SmartLifecycle redisWatching(RedisWatch watch, StoreProperties settings) {
        Duration interval = settings.probeInterval();
        // Saturated: a refresh of years over a probe of 1 ms must not wrap to a negative count.
        int refreshEvery = (int) Math.min(
                Integer.MAX_VALUE,
                Math.max(1, settings.knownKeysRefresh().toMillis() / Math.max(1, interval.toMillis())));
        return new LoopLifecycle(() -> watch.start(interval, refreshEvery), watch::stop);
    }

    @Bean
    StoreHealthIndicator sluiceStoreHealthIndicator(StoreState state, StoreMode mode) {
        return new StoreHealthIndicator(state, mode);
    }

    @EventListener(ApplicationReadyEvent.class)
    void announce(ApplicationReadyEvent event) {
        StoreMode mode = event.getApplicationContext().getBean(StoreMode.class);
        if (mode == StoreMode.MEMORY) {
            log.warn("No Redis configured (spring.data.redis.url): using the in-memory store. Limits hold for "
                    + "this one instance only; set SPRING_DATA_REDIS_URL to share them across replicas.");
        } else {
            log.info("State shared through Redis.");
        }
    }
}
