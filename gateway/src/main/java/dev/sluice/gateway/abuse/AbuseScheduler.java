package dev.sluice.gateway.abuse;

import dev.sluice.gateway.support.Periodic;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs the sampler once a minute for the whole fleet. Every replica ticks (once a second);
 * once a minute has ended (plus {@code settle}, so every replica has shipped its activity
 * for it), the first replica to win that minute's {@link SamplerLock} samples it and the
 * others skip it. A tick never overlaps the previous one.
 */
public final class AbuseScheduler {
    private static final Logger log = LoggerFactory.getLogger(AbuseScheduler.class);
    /** How many skipped minutes a tick samples before the due one, at most. */
    static final int CATCH_UP_MINUTES = 10;

    private final AbuseSampler sampler;
    private final SamplerLock lock;
    private final TenantActivity activity;
    private final Clock clock;
    private final String owner;
    private final long settleMs;
    private final AtomicLong lastTried = new AtomicLong(Long.MIN_VALUE);
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Periodic ticking = new Periodic(
            "abuse sampling",
            () -> tick().onErrorResume(e -> {
                log.warn("Abuse sampling failed: {}", e.toString());
                return Mono.empty();
            }));

    public AbuseScheduler(
            AbuseSampler sampler,
            SamplerLock lock,
            TenantActivity activity,
            Clock clock,
            String owner,
            Duration settle) {
        this.sampler = sampler;
        this.lock = lock;
        this.activity = activity;
        this.clock = clock;
        this.owner = owner;
        this.settleMs = settle.toMillis();
    }

    /** The start of the latest minute that ended at least {@code settle} ago. */
    long dueMinute(long nowMs) {
        return ActivityBuffer.minuteOf(nowMs - settleMs) - 60_000L;
    }

    /**
     * One tick: samples the due minute if nobody (this replica included) has tried it yet and
     * this replica wins its lock; and the minutes before it that this replica's ticks skipped
     * (a tick late by more than a minute: a pause, a slow store), up to {@link #CATCH_UP_MINUTES},
     * since a missing minute breaks a tenant's run at the ceiling. Empty when there was nothing
     * to do here; otherwise the last minute's report.
     */
    public Mono<AbuseSampler.MinuteReport> tick() {
        return Mono.defer(() -> {
            long due = dueMinute(clock.millis());
            long last = lastTried.get();
            if (due <= last || !lastTried.compareAndSet(last, due)) return Mono.empty();
            if (!busy.compareAndSet(false, true)) return Mono.empty();
            long first =
                    last == Long.MIN_VALUE ? due : Math.max(last + 60_000L, due - (CATCH_UP_MINUTES - 1) * 60_000L);
            return activity.flush()
                    .thenMany(Flux.fromStream(LongStream.iterate(first, m -> m <= due, m -> m + 60_000L)
                            .boxed()))
                    .concatMap(minute -> lock.tryAcquire(minute, owner)
                            .flatMap(won -> won ? sampler.sampleMinute(minute) : Mono.empty())
                            .doOnNext(r -> log.debug(
                                    "Sampled minute {}: {} tenants, {} flags opened",
                                    Instant.ofEpochMilli(minute),
                                    r.sampled(),
                                    r.opened().size())))
                    .takeLast(1)
                    .next()
                    .doFinally(s -> busy.set(false));
        });
    }

    public void start(Duration tickInterval) {
        ticking.start(tickInterval, tickInterval);
    }

    public void stop() {
        ticking.stop();
    }
}
