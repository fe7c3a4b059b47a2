package dev.sluice.gateway.dispatch.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.queue.LaneShare.Report;
import dev.sluice.gateway.dispatch.queue.LaneShare.Terms;
import dev.sluice.gateway.dispatch.queue.LaneShare.View;
import dev.sluice.gateway.dispatch.queue.memory.InMemoryLaneShare;
import dev.sluice.gateway.dispatch.queue.redis.RedisLaneShare;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code lane_share.lua} and its Java twin, step by step on the same random reports, give the same answers. */
class LaneShareTwinsTest {
    static final Terms TERMS = new Terms(1_000, 30_000);

    @Test
    void theScriptAndItsTwinAgreeOnRandomReports() {
        LaneShare redis = new RedisLaneShare(TestRedisTemplates.template());
        LaneShare memory = new InMemoryLaneShare();
        String key = "twins-" + UUID.randomUUID() + ":*";
        SplittableRandom random = new SplittableRandom(15);
        String[] replicas = {"a", "b", "c"};
        String[] tenants = {"t1", "t2", "t3", "t4", "t5", "t6"};
        long now = 1_000_000;
        for (int step = 0; step < 500; step++) {
            now += random.nextInt(10) == 0
                    ? random.nextLong(1_000, 5_000)
                    : random.nextLong(0, 400); // now and then a silence past the TTL
            String replica = replicas[random.nextInt(replicas.length)];
            List<Report> lanes = new ArrayList<>();
            for (String t : tenants) {
                if (random.nextInt(3) == 0) continue;
                long served = random.nextInt(5) == 0 ? -random.nextLong(0, 500) : random.nextLong(0, 6_000);
                lanes.add(new Report(t, served, random.nextInt(4) != 0));
            }
            View fromRedis =
                    redis.publish(key, replica, now, lanes, List.of(), TERMS).block(Duration.ofSeconds(5));
            View fromMemory =
                    memory.publish(key, replica, now, lanes, List.of(), TERMS).block(Duration.ofSeconds(5));
            assertThat(fromRedis)
                    .as("step %d: %s at %d reports %s", step, replica, now, lanes)
                    .isEqualTo(fromMemory);
        }
    }
}
