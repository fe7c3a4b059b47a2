package dev.sluice.gateway.testsupport;

import java.util.HashMap;
import java.util.Map;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/** A template on the shared test Redis for tests that run without a Spring context. */
public final class TestRedisTemplates {
    private static ReactiveStringRedisTemplate template;

    private TestRedisTemplates() {}

    private static final Map<Integer, ReactiveStringRedisTemplate> byDatabase = new HashMap<>();

    /**
     * A template on one logical database of the shared test Redis: a gateway started on it (with
     * {@code TestRedis.url() + "/" + database}) has a tiers document of its own, not the one the
     * other gateway tests share in database 0.
     */
    public static synchronized ReactiveStringRedisTemplate template(int database) {
        return byDatabase.computeIfAbsent(database, db -> {
            RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(TestRedis.host(), TestRedis.port());
            config.setDatabase(db);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(config);
            factory.afterPropertiesSet();
            factory.start();
            return new ReactiveStringRedisTemplate(factory);
        });
    }

    /**
     * {@link #template(int)} after FLUSHDB: a test with a database of its own starts from nothing, even on
     * a Redis kept between runs ({@code SLUICE_TEST_REDIS_URL}) that holds the last run's tiers and budgets.
     */
    public static ReactiveStringRedisTemplate flushed(int database) {
        ReactiveStringRedisTemplate t = template(database);
        t.execute(c -> c.serverCommands().flushDb()).blockLast();
        return t;
    }

    public static synchronized ReactiveStringRedisTemplate template() {
        if (template == null) {
            LettuceConnectionFactory factory =
                    new LettuceConnectionFactory(new RedisStandaloneConfiguration(TestRedis.host(), TestRedis.port()));
            factory.afterPropertiesSet();
            factory.start();
            template = new ReactiveStringRedisTemplate(factory);
        }
        return template;
    }
}
