package dev.sluice.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** Every way an operator can name a Redis switches the gateway to it, lists included. */
class RedisConfiguredConditionTest {
    static StandardEnvironment env(Map<String, Object> properties) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return env;
    }

    @Test
    void aClusterGivenAsAYamlListIsConfigured() {
        // What application.yml's "nodes:\n  - a:6379\n  - b:6379" becomes.
        assertThat(RedisConfiguredCondition.isConfigured(env(Map.of(
                        "spring.data.redis.cluster.nodes[0]",
                        "a:6379",
                        "spring.data.redis.cluster.nodes[1]",
                        "b:6379"))))
                .isTrue();
    }

    @Test
    void aClusterGivenAsIndexedEnvironmentVariablesIsConfigured() {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources()
                .replace(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of("SPRING_DATA_REDIS_CLUSTER_NODES_0_", "a:6379")));
        assertThat(RedisConfiguredCondition.isConfigured(env)).isTrue();
    }

    @Test
    void everySingleValueFormIsConfigured() {
        assertThat(RedisConfiguredCondition.isConfigured(
                        env(Map.of("spring.data.redis.cluster.nodes", "a:6379,b:6379"))))
                .isTrue();
        assertThat(RedisConfiguredCondition.isConfigured(env(Map.of("spring.data.redis.url", "redis://a:6379"))))
                .isTrue();
        assertThat(RedisConfiguredCondition.isConfigured(env(Map.of("spring.data.redis.host", "a"))))
                .isTrue();
        assertThat(RedisConfiguredCondition.isConfigured(env(Map.of("spring.data.redis.sentinel.master", "m"))))
                .isTrue();
        assertThat(RedisConfiguredCondition.isConfigured(
                        env(Map.of("spring.data.redis.masterreplica.nodes", "a:6379"))))
                .isTrue();
    }

    @Test
    void nothingOrBlanksIsTheInMemoryStore() {
        assertThat(RedisConfiguredCondition.isConfigured(env(Map.of()))).isFalse();
        assertThat(RedisConfiguredCondition.isConfigured(
                        env(Map.of("spring.data.redis.cluster.nodes", " ", "spring.data.redis.url", ""))))
                .isFalse();
    }
}
