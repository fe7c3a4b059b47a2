package dev.sluice.gateway.store;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * True when the operator named a Redis (url, host, cluster nodes, sentinel or master/replica
 * nodes). Boot would otherwise assume localhost:6379; Sluice instead runs on its in-memory
 * stores and says so.
 */
public class RedisConfiguredCondition extends SpringBootCondition {
    static final String[] PROPERTIES = {
        "spring.data.redis.url", "spring.data.redis.host", "spring.data.redis.sentinel.master"
    };
    /**
     * Lists: bound, not read as one property, because a YAML list or {@code SPRING_DATA_REDIS_CLUSTER_NODES_0_}
     * arrives as {@code nodes[0]}, {@code nodes[1]}, and {@code getProperty("...nodes")} sees none of them.
     */
    static final String[] LISTS = {"spring.data.redis.cluster.nodes", "spring.data.redis.masterreplica.nodes"};

    public static boolean isConfigured(Environment env) {
        for (String p : PROPERTIES) {
            String v = env.getProperty(p);
            if (v != null && !v.isBlank()) return true;
        }
        Binder binder = Binder.get(env);
        for (String p : LISTS) {
            List<String> nodes = binder.bind(p, Bindable.listOf(String.class)).orElse(List.of());
            if (nodes.stream().anyMatch(n -> n != null && !n.isBlank())) return true;
        }
        return false;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return isConfigured(context.getEnvironment())
                ? ConditionOutcome.match("Redis is configured")
                : ConditionOutcome.noMatch(
                        "no spring.data.redis.{url,host,cluster.nodes,sentinel.master,masterreplica.nodes}");
    }
}
