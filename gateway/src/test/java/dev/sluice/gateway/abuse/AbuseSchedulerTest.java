package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.abuse.memory.InMemoryFlagStore;
import dev.sluice.gateway.abuse.memory.InMemoryTenantActivity;
import dev.sluice.gateway.abuse.memory.InMemoryUsageHistory;
import dev.sluice.gateway.abuse.memory.LocalSamplerLock;
import dev.sluice.gateway.config.SluiceConfig;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.config.TiersYamlParser;
import dev.sluice.gateway.quota.FakeClock;
import dev.sluice.gateway.quota.QuotaLimiter;
import dev.sluice.gateway.quota.memory.InMemoryQuotaStore;
import dev.sluice.gateway.tenant.InMemoryTenantStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AbuseSchedulerTest {
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000L);
    static final long MIN = 60_000L;

    @Test
    void aTickLateByMinutesSamplesTheMinutesItSkipped() throws Exception {
        FakeClock clock = new FakeClock(T0);
        SluiceConfig config = TiersYamlParser.parse("tiers.yaml", Files.readString(Path.of("../tiers.yaml")));
        Tier free = config.tier("free").orElseThrow();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        QuotaLimiter quota = new QuotaLimiter(new InMemoryQuotaStore(clock), null, Duration.ofSeconds(5), meters);
        InMemoryTenantActivity activity = new InMemoryTenantActivity(clock);
        InMemoryUsageHistory history = new InMemoryUsageHistory();
        AbuseSampler sampler = new AbuseSampler(
                activity,
                quota,
                history,
                new InMemoryFlagStore(),
                new InMemoryTenantStore(),
                () -> config,
                clock,
                meters);
        AbuseScheduler scheduler =
                new AbuseScheduler(sampler, new LocalSamplerLock(), activity, clock, "test", Duration.ofSeconds(2));
        for (int m = 0; m < 4; m++) {
            clock.set(T0 + m * MIN + 1_000);
            activity.requestSeen("t", free.name());
            activity.quotaAnswered(
                    "t", 100, quota.acquire("t", free, 100).block().decision(), false);
        }
        clock.set(T0 + MIN + 2_000);
        assertThat(scheduler.tick().block().minuteStartMs()).isEqualTo(T0);
        clock.set(T0 + 4 * MIN + 2_000); // no tick for three minutes (a pause, a loaded host)
        assertThat(scheduler.tick().block().minuteStartMs()).isEqualTo(T0 + 3 * MIN);
        assertThat(history.since("t", 0)
                        .map(UsageSample::minuteStartMs)
                        .collectList()
                        .block())
                .containsExactly(T0, T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN);
        assertThat(scheduler.tick().block()).isNull(); // nothing left to do
    }
}
