package dev.sluice.lab.scenario;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that runs {@code factor} times faster than the wall, from now on. The lab scenarios
 * compress time with it: the provider simulator, the gateway's provider budget and door, and the
 * drivers that measure waits all read this one clock, so they keep counting in the seed's units
 * (a 60 s minute, 2 s calls, a 60 s max wait) while a seed minute passes in {@code 60 / factor}
 * real seconds. Only real timers (a call's latency, a ramp step) are divided by the factor,
 * through {@link #real}. Monotonic: it follows {@link System#nanoTime()}.
 */
public final class ScaledClock extends Clock {
    private final double factor;
    private final long originMillis;
    private final long originNanos;

    public ScaledClock(double factor) {
        this(factor, System.currentTimeMillis(), System.nanoTime());
    }

    private ScaledClock(double factor, long originMillis, long originNanos) {
        if (!(factor >= 1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("time factor must be a finite number >= 1, was " + factor);
        }
        this.factor = factor;
        this.originMillis = originMillis;
        this.originNanos = originNanos;
    }

    public double factor() {
        return factor;
    }

    @Override
    public long millis() {
        return originMillis + (long) ((System.nanoTime() - originNanos) * factor / 1_000_000.0);
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
        return this; // only ever read as an instant
    }

    /** A duration on this clock as a wall-clock timer. */
    public Duration real(Duration onClock) {
        return Duration.ofNanos((long) (onClock.toNanos() / factor));
    }

    /** Milliseconds on this clock as a wall-clock timer. */
    public Duration realMillis(long onClockMillis) {
        return real(Duration.ofMillis(Math.max(0, onClockMillis)));
    }
}
