package dev.sluice.gateway.quota;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A clock tests move by hand. */
public final class FakeClock extends Clock implements LongSupplier {
    private final AtomicLong millis;

    public FakeClock(long startMs) {
        this.millis = new AtomicLong(startMs);
    }

    public void set(long ms) {
        millis.set(ms);
    }

    public void advance(long ms) {
        millis.addAndGet(ms);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public long getAsLong() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneOffset getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
