package dev.sluice.gateway.store;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Without a configured Redis, Boot's Redis health check would probe localhost:6379 and mark
 * the gateway DOWN although it runs fine on memory; switch that check off in that case only.
 */
public class StoreEnvironmentPostProcessor implements EnvironmentPostProcessor {
    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!RedisConfiguredCondition.isConfigured(environment)) {
            environment
                    .getPropertySources()
                    .addLast(new MapPropertySource(
                            "sluice-store-defaults", Map.of("management.health.redis.enabled", "false")));
        }
    }
}
