package dev.sluice.gateway.simulation;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A clock that reads the simulation's virtual time, shifted by a fixed offset: a replica's clock
 * (which may run ahead of or behind the store's) or a provider's. Every production class is given
 * one of these, so nothing in a run reads the wall clock.
 */
final class SimClock extends Clock {
    /** Virtual time 0 reads as this instant (2024-01-01T00:00Z): epoch-scale figures, as real clocks give. */
    static final long EPOCH_MS = 1_704_067_200_000L;

    private final VirtualTimeScheduler time;
    private final long offsetMs;

    SimClock(VirtualTimeScheduler time, long offsetMs) {
        this.time = time;
        this.offsetMs = offsetMs;
    }

    @Override
    public long millis() {
        return EPOCH_MS + time.now(TimeUnit.MILLISECONDS) + offsetMs;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
