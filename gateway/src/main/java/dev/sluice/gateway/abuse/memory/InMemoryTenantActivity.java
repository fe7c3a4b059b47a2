package dev.sluice.gateway.abuse.memory;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.MinuteActivity;
import dev.sluice.gateway.abuse.Pressure;
import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.abuse.TenantActivity;
import dev.sluice.gateway.quota.QuotaDecision;
import java.time.Clock;
import reactor.core.publisher.Mono;

/** The single-instance recorder: the buffer is the store; minutes older than ten are forgotten. */
public final class InMemoryTenantActivity implements TenantActivity {
    private static final long KEPT_MS = 10 * 60_000L;

    private final Clock clock;
    private final ActivityBuffer buffer = new ActivityBuffer();

    public InMemoryTenantActivity(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void requestSeen(String tenantId, String tierName) {
        buffer.seen(clock.millis(), tenantId, tierName);
    }

    @Override
    public void stageTaken(String tenantId, String stage) {
        buffer.stage(clock.millis(), tenantId, Stage.of(stage));
    }

    @Override
    public void quotaAnswered(String tenantId, long requestTokens, QuotaDecision decision, boolean held) {
        if (decision == null) return;
        buffer.pressure(clock.millis(), tenantId, Pressure.of(decision, requestTokens, held));
    }

    @Override
    public Mono<MinuteActivity> minute(long minuteStartMs) {
        return Mono.fromSupplier(() -> {
            buffer.forgetBefore(ActivityBuffer.minuteOf(clock.millis()) - KEPT_MS);
            return buffer.snapshot(minuteStartMs);
        });
    }
}
