package dev.sluice.gateway.store;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * True when the operator named a Redis (url, host, cluster nodes or sentinel). Boot would
 * otherwise assume localhost:6379; Sluice instead runs on its in-memory stores and says so.
 */
public class RedisConfiguredCondition extends SpringBootCondition {
    static final String[] PROPERTIES = {
            "spring.data.redis.url", "spring.data.redis.host",
            "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.master"};

    public static boolean isConfigured(Environment env) {
        for (String p : PROPERTIES) {
            String v = env.getProperty(p);
            if (v != null && !v.isBlank()) return true;
        }
        return false;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return isConfigured(context.getEnvironment())
                ? ConditionOutcome.match("Redis is configured")
                : ConditionOutcome.noMatch("no spring.data.redis.{url,host,cluster.nodes,sentinel.master}");
    }
}
