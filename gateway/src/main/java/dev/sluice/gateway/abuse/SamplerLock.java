package dev.sluice.gateway.abuse;

import reactor.core.publisher.Mono;

/** Decides which replica samples a given minute: the first to ask wins it, every other replica is told no. */
public interface SamplerLock {
    Mono<Boolean> tryAcquire(long minuteStartMs, String owner);
}
