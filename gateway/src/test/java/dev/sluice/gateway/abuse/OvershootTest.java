package dev.sluice.gateway.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.accuracy.EnforcementAccuracy;
import dev.sluice.gateway.quota.WindowUsage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sampler's overshoot: the fullest window's settled tokens above its limit, counted once per tenant-minute. */
class OvershootTest {
    static WindowUsage window(String name, long limit, long used) {
        return new WindowUsage(name, 60, limit, Long.MAX_VALUE, used, 1, 1_000);
    }

    @Test
    void theFullestWindowsExcessIsTheOvershoot() {
        assertThat(AbuseSampler.overshoot(List.of(window("minute", 1_000, 900))))
                .isZero();
        assertThat(AbuseSampler.overshoot(List.of(window("minute", 1_000, 1_000))))
                .isZero();
        assertThat(AbuseSampler.overshoot(List.of(window("minute", 1_000, 1_250), window("hour", 10_000, 10_400))))
                .isEqualTo(400);
        assertThat(AbuseSampler.overshoot(List.of(window("requests only", Long.MAX_VALUE, 5_000))))
                .isZero();
    }

    @Test
    void aTenantMinuteOverCountsOnceWithItsTokens() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        EnforcementAccuracy.overshoot(meters, "free", 0);
        EnforcementAccuracy.overshoot(meters, "free", 250);
        EnforcementAccuracy.overshoot(meters, "free", 50);
        assertThat(meters.counter(EnforcementAccuracy.OVERSHOOT, "tier", "free").count())
                .isEqualTo(2);
        assertThat(meters.counter(EnforcementAccuracy.OVERSHOOT_TOKENS, "tier", "free")
                        .count())
                .isEqualTo(300);
    }
}
