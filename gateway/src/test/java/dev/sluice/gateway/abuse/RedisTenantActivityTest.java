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
    void replicasAnswersMergeByMaxMinAndSum() {
        RedisTenantActivity other = new RedisTenantActivity(TestRedisTemplates.template(), namespace, clock);
        activity.quotaAnswered(a, 800, answer(true, 9_000, null), false);
        other.quotaAnswered(a, 1_000, answer(true, 9_600, null), false);
        other.quotaAnswered(a, 1_000, answer(false, 9_600, "minute"), false);
        other.flush().block();
        var p = minute(T0).pressure(a);
        assertThat(p)
                .containsEntry("minute peak", 960_000L)
                .containsEntry("minute room", 400L)
                .containsEntry("minute answers", 3L)
                .containsEntry("minute refused", 1L)
                .containsEntry("* asked-tokens", 2_800L);
    }

    @Test
    void everyKeyItWritesHasATtl() {
        activity.requestSeen(a, "free");
        activity.stageTaken(a, "passed");
        activity.quotaAnswered(a, 800, answer(true, 800, null), false);
        activity.flush().block();
        var redis = TestRedisTemplates.template();
        var keys = redis.keys(namespace + ":*").collectList().block();
        assertThat(keys).hasSize(3);
        keys.forEach(k -> assertThat(redis.getExpire(k).block().getSeconds()).isPositive());
    }
}
