package dev.sluice.gateway.quota;

import dev.sluice.gateway.config.RedisDownPolicy;
import dev.sluice.gateway.config.Tier;
import dev.sluice.gateway.store.LocalFallback;
import dev.sluice.gateway.store.StoreState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * What the quota does when the shared store does not answer: the tier's named policy decides at
 * once, fail open onto this replica's own windows or fail closed, counted per tier and warned of
 * once per 10 s; and when the store answers again, what the local windows spent is handed to it.
 */
final class QuotaFallback {
    private static final Logger log = LoggerFactory.getLogger(QuotaFallback.class);

    /** Redis was marked down by an earlier call: this one is not sent (no second timeout per request). */
    static final Throwable DOWN = new IllegalStateException("Redis marked down by an earlier call") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    static final Throwable SPENT = new IllegalStateException("the request's store budget is spent") {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    };

    private final QuotaStore shared;
    /** This replica's own windows for fail-open tiers, with the tenants served on them and their tier's windows; null: none. */
    private final LocalFallback<QuotaStore, String, QuotaScope> local;

    private final Duration storeTimeout;
    private final MeterRegistry meters;
    private final Clock clock;
    private final AtomicLong lastWarnMs = new AtomicLong();

    /**
     * @param local      used by fail-open tiers when {@code shared} fails; null when {@code shared} is already local
     * @param freshLocal when Redis answers again, what the local windows spent is handed to it and
     *                   the next outage starts on fresh ones from here; null: no hand-over
     * @param clock      the shared store's time, for the hand-over and the warnings' pace
     */
    QuotaFallback(
            QuotaStore shared,
            QuotaStore local,
            Supplier<QuotaStore> freshLocal,
            StoreState state,
            Duration storeTimeout,
            MeterRegistry meters,
            Clock clock) {
        this.shared = shared;
        this.storeTimeout = storeTimeout;
        this.meters = meters;
        this.clock = clock;
        this.local =
                local == null ? null : new LocalFallback<>(local, freshLocal, state, clock, this::handOverLocalSpend);
    }

    /**
     * The store {@code scope} is charged on after {@code error}: this replica's own windows when the
     * tier fails open (keyed by the owner: a member's are its organisation's, every level of them), or
     * null when it fails closed.
     */
    QuotaStore localFor(Throwable error, Tier tier, QuotaScope scope) {
        boolean open = failsOpen(tier);
        counter(tier).increment();
        long now = clock.millis();
        long last = lastWarnMs.get();
        if (now - last > 10_000 && lastWarnMs.compareAndSet(last, now)) { // one line per 10 s, not per request
            log.warn(
                    "Quota store did not answer ({}); tier {} fails {}",
                    error.toString(),
                    tier.name(),
                    open ? "open" : "closed");
        }
        return open ? local.serve(scope.owner(), scope) : null;
    }

    /**
     * Every tier's {@code sluice.store.fallback} series at zero, from start: an alert on the first
     * fallback needs the series before it (a counter born at 1 shows no increase).
     */
    void registerMeters(Collection<Tier> tiers) {
        for (Tier tier : tiers) counter(tier);
    }

    private boolean failsOpen(Tier tier) {
        return tier.redisDown() == RedisDownPolicy.FAIL_OPEN && local != null;
    }

    private Counter counter(Tier tier) {
        return meters.counter(
                "sluice.store.fallback", "tier", tier.name(), "policy", failsOpen(tier) ? "fail-open" : "fail-closed");
    }

    /**
     * Redis answers again: a tenant (or organisation, for its members) served on this replica's
     * windows meanwhile is charged in Redis what it used there, window by window and spend period
     * by spend period, so no tenant gets a second full window, or a second day's budget, after an
     * outage. The charge lands in the slot and period of the recovery (the store makes them when it
     * does not hold them).
     */
    private void handOverLocalSpend(QuotaStore spent, String owner, QuotaScope scope, long now) {
        spent.peek(owner, scope.windows(), scope.spends())
                .subscribe(
                        used -> {
                            for (int i = 0;
                                    i < scope.windows().size()
                                            && i < used.windows().size();
                                    i++) {
                                WindowUsage u = used.windows().get(i);
                                if (u.usedTokens() == 0 && u.usedRequests() == 0) continue;
                                handOver(
                                        shared.adjust(
                                                owner,
                                                List.of(scope.windows().get(i)),
                                                now,
                                                u.usedTokens(),
                                                u.usedRequests()),
                                        owner);
                            }
                            for (int j = 0;
                                    j < scope.spends().size()
                                            && j < used.spends().size();
                                    j++) {
                                long micros = used.spends().get(j).usedMicros();
                                if (micros == 0) continue;
                                handOver(
                                        shared.adjust(
                                                owner,
                                                List.of(),
                                                List.of(scope.spends().get(j)),
                                                now,
                                                0,
                                                0,
                                                micros),
                                        owner);
                            }
                        },
                        e -> log.debug("Could not read {}'s local windows: {}", owner, e.toString()));
    }

    private void handOver(Mono<Void> charge, String owner) {
        charge.timeout(storeTimeout.multipliedBy(4))
                .subscribe(null, e -> log.debug("Could not hand {}'s local spend to Redis: {}", owner, e.toString()));
    }
}
