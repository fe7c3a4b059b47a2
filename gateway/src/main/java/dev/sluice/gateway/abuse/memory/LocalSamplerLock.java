package dev.sluice.gateway.abuse.memory;

import dev.sluice.gateway.abuse.SamplerLock;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/** One instance is the whole fleet: each minute is won once, by whoever asks first. */
public final class LocalSamplerLock implements SamplerLock {
    private final AtomicLong lastWon = new AtomicLong(Long.MIN_VALUE);

    @Override
    public Mono<Boolean> tryAcquire(long minuteStartMs, String owner) {
        return Mono.fromSupplier(() -> {
            long last;
            do {
                last = lastWon.get();
                if (minuteStartMs <= last) return false;
            } while (!lastWon.compareAndSet(last, minuteStartMs));
            return true;
        });
    }
}
