package dev.sluice.gateway.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;

/** Says once, at start, where shared state lives: a named Redis, or this process's memory. */
@Configuration(proxyBeanMethods = false)
public class StoreConfiguration {
    private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

    @Bean
    StoreMode storeMode(Environment env) {
        return RedisConfiguredCondition.isConfigured(env) ? StoreMode.REDIS : StoreMode.MEMORY;
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
