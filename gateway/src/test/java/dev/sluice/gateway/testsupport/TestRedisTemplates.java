package dev.sluice.gateway.testsupport;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** A template on the shared test Redis for tests that run without a Spring context. */
public final class TestRedisTemplates {
    private static ReactiveStringRedisTemplate template;

    private TestRedisTemplates() {
    }

    public static synchronized ReactiveStringRedisTemplate template() {
        if (template == null) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(TestRedis.host(), TestRedis.port()));
            factory.afterPropertiesSet();
            factory.start();
            template = new ReactiveStringRedisTemplate(factory);
        }
        return template;
    }
}
