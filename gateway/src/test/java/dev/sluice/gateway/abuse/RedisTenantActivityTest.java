package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.redis.RedisTenantActivity;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RedisTenantActivityTest extends TenantActivityContract {
    String namespace;

    @Override
    TenantActivity newActivity(FakeClock clock) {
        namespace = "test-" + UUID.randomUUID();
        return new RedisTenantActivity(TestRedisTemplates.template(), namespace, clock);
    }

    @Test
    void replicasAddUpAndNothingReachesRedisBeforeAFlush() {
        RedisTenantActivity other = new RedisTenantActivity(TestRedisTemplates.template(), namespace, clock);
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        other.requestSeen(a, "free");
        other.stageTaken(a, "passed");
        assertThat(activity.minute(T0).block().isEmpty()).isTrue(); // the request path wrote only to memory
        other.flush().block();
        assertThat(minute(T0).stages(a).get("passed")).isEqualTo(2L);
    }

    @Test
    void everyKeyItWritesHasATtl() {
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        activity.flush().block();
        var redis = TestRedisTemplates.template();
        var keys = redis.keys(namespace + ":*").collectList().block();
        assertThat(keys).hasSize(2);
        keys.forEach(k -> assertThat(redis.getExpire(k).block().getSeconds()).isPositive());
    }
}
