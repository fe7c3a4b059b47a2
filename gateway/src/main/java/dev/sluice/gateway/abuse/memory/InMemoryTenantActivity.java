package dev.sluice.gateway.abuse.memory;

import dev.sluice.gateway.abuse.ActivityBuffer;
import dev.sluice.gateway.abuse.BufferedTenantActivity;
import dev.sluice.gateway.abuse.MinuteActivity;
import java.time.Clock;
import reactor.core.publisher.Mono;

/** The single-instance recorder: the buffer is the store; minutes older than ten are forgotten. */
public final class InMemoryTenantActivity extends BufferedTenantActivity {
    private static final long KEPT_MS = 10 * 60_000L;

    public InMemoryTenantActivity(Clock clock) {
        super(clock);
    }

    @Override
    public Mono<MinuteActivity> minute(long minuteStartMs) {
        return Mono.fromSupplier(() -> {
            buffer.forgetBefore(ActivityBuffer.minuteOf(clock.millis()) - KEPT_MS);
            return buffer.snapshot(minuteStartMs);
        });
    }
}
