package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.redis.RedisFlagStore;
import dev.sluice.gateway.abuse.redis.RedisSamplerLock;
import dev.sluice.gateway.abuse.redis.RedisTenantActivity;
import dev.sluice.gateway.abuse.redis.RedisUsageHistory;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import dev.sluice.gateway.testsupport.ClockedRedisQuotaStore;
import dev.sluice.gateway.testsupport.TestRedisTemplates;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on one Redis, each with its own activity buffer and scheduler ticking every
 * second: each minute is sampled once, by one of them, with both replicas' requests in it.
 */
class SamplerFleetTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);

    record Replica(RedisTenantActivity activity, AbuseScheduler scheduler) {}

    @Test
    void twoSchedulersOnOneRedisSampleEachMinuteOnce() throws Exception {
        String ns = "test-" + UUID.randomUUID();
        String tenant = "t-" + UUID.randomUUID();
        var redis = TestRedisTemplates.template();
        FakeClock clock = new FakeClock(T0);
        SluiceConfig config = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));
        Tier free = config.tier("free").orElseThrow();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        QuotaLimiter quota =
                new QuotaLimiter(new ClockedRedisQuotaStore(redis, clock), null, Duration.ofSeconds(5), meters);
        RedisUsageHistory history = new RedisUsageHistory(redis, ns);
        RedisFlagStore flags = new RedisFlagStore(redis, ns, Duration.ofDays(90));
        List<Replica> replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RedisTenantActivity activity = new RedisTenantActivity(redis, ns, clock);
            AbuseSampler sampler = new AbuseSampler(
                    activity, quota, history, flags, new InMemoryTenantStore(), () -> config, clock, meters);
            replicas.add(new Replica(
                    activity,
                    new AbuseScheduler(
                            sampler,
                            new RedisSamplerLock(redis, ns),
                            activity,
                            clock,
                            "replica-" + i,
                            Duration.ofSeconds(2))));
        }

        List<AbuseSampler.MinuteReport> reports = new ArrayList<>();
        for (int s = 0; s < 10 * 60; s++) {
            if (s % 10 == 0) { // each replica serves one request every 20 s: six a minute between them
                Replica r = replicas.get((s / 10) % 2);
                r.activity().requestSeen(tenant, "free");
                quota.acquire(tenant, free, 100).block();
                r.activity().stageTaken(tenant, "passed");
            }
            for (Replica r : replicas) {
                r.activity().flush().block(); // what each replica's shipping does every second
                AbuseSampler.MinuteReport report = r.scheduler().tick().block();
                if (report != null) reports.add(report);
            }
            clock.advance(1000);
        }

        // every minute from the one before the start (the first tick's due minute) to 8 has been run, once in all
        List<Long> minutes =
                reports.stream().map(AbuseSampler.MinuteReport::minuteStartMs).toList();
        assertThat(minutes).doesNotHaveDuplicates().hasSize(11).contains(T0, T0 + 8 * 60_000L);
        assertThat(reports.stream().filter(r -> r.sampled() > 0)).hasSize(9);
        List<UsageSample> series = history.since(tenant, 0).collectList().block();
        assertThat(series).hasSize(9);
        assertThat(series).allSatisfy(p -> {
            assertThat(p.stages().get("passed")).isEqualTo(6L); // both replicas' counts in one point
            assertThat(p.requests()).isEqualTo(6L);
        });
    }
}
