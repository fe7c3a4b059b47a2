package dev.sluice.gateway.abuse;

import dev.sluice.gateway.api.Stage;
import dev.sluice.gateway.quota.QuotaDecision;
import java.time.Clock;

/**
 * The request path's writes, the same for every adapter: each goes to this process's
 * {@link ActivityBuffer} at the clock's time, and never waits. The adapters differ in what they
 * do with the buffer: read a minute from it (memory), or ship it and read the minute every
 * replica wrote (Redis).
 */
public abstract class BufferedTenantActivity implements TenantActivity {
    protected final Clock clock;
    protected final ActivityBuffer buffer = new ActivityBuffer();

    protected BufferedTenantActivity(Clock clock) {
        this.clock = clock;
    }

    @Override
    public final void requestSeen(String tenantId, String tierName) {
        buffer.seen(clock.millis(), tenantId, tierName);
    }

    @Override
    public final void stageTaken(String tenantId, String stage) {
        buffer.stage(clock.millis(), tenantId, Stage.of(stage));
    }

    @Override
    public final void quotaAnswered(String tenantId, long requestTokens, QuotaDecision decision, boolean held) {
        if (decision == null) return;
        buffer.pressure(clock.millis(), tenantId, Pressure.of(decision, requestTokens, held));
    }
}
