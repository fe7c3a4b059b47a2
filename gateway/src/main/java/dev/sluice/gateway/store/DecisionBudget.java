package dev.sluice.gateway.store;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * How long one request may still wait on the shared store before it is decided
 * ({@code sluice.store.decision-timeout}). Taken once when the request arrives and shared by every
 * stage: each store call waits at most its own timeout or what is left, whichever is less, and
 * its wait is taken from what is left, so a request's store calls together never wait longer
 * than the budget however many there are (the key lookup, the quota, the ladder's second ask,
 * the ownership stage, the provider budget). A stage that finds it spent applies its Redis-down
 * policy without calling the store.
 *
 * <p>Only waits on the store count. Time spent on the client (a slow upload) or held on purpose
 * (the ladder's delay) does not: counting it would send a request with a healthy Redis to its
 * tier's Redis-down policy.
 *
 * <p>A call the budget cuts short fails with {@link Spent}: that says nothing about the store (it
 * had less time than its timeout), so it does not mark the store down. One that runs its whole
 * timeout does; as the budget is at least the timeout, every request's first call can.
 */
public final class DecisionBudget {
    /** No budget: each call waits its own timeout (a request already sent, background work). */
    public static final DecisionBudget UNLIMITED = new DecisionBudget(Long.MAX_VALUE, () -> 0L);

    /** The budget was spent before or during a call: the stage decides by its Redis-down policy. */
    public static final class Spent extends RuntimeException {
        private Spent() {
            super("the request's store budget is spent", null, false, false);
        }
    }

    private static final Spent SPENT = new Spent();

    private final long budgetNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong waitedNanos = new AtomicLong();

    private DecisionBudget(long budgetNanos, LongSupplier nanoClock) {
        this.budgetNanos = budgetNanos;
        this.nanoClock = nanoClock;
    }

    /** @param nanoClock monotonic nanoseconds ({@code System::nanoTime}; a virtual scheduler's {@code now} in tests) */
    public static DecisionBudget of(Duration budget, LongSupplier nanoClock) {
        if (budget.isNegative())
            throw new IllegalArgumentException("a decision budget cannot be negative, was " + budget);
        return new DecisionBudget(budget.toNanos(), nanoClock);
    }

    /** What is left to wait, never negative. */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, budgetNanos - waitedNanos.get()));
    }

    /** How long this request's store calls have waited so far. */
    public Duration waited() {
        return Duration.ofNanos(waitedNanos.get());
    }

    public boolean spent() {
        return waitedNanos.get() >= budgetNanos;
    }

    /** The longest the next call may wait: its own timeout, or what is left if less. */
    public Duration bound(Duration timeout) {
        long left = budgetNanos - waitedNanos.get();
        return left < timeout.toNanos() ? Duration.ofNanos(Math.max(0, left)) : timeout;
    }

    /**
     * {@code call}, waited on at most {@link #bound bound(timeout)}, and no longer than the store
     * stays up (a call still waiting when another one marks the store down ends with it). The wait
     * is taken from the budget however the call ends. Fails with {@link Spent} when the budget is
     * spent (before the call: it is not made) or ends the wait, with a {@link TimeoutException}
     * when the call's own timeout does, and with {@link StoreUnavailableException} when the store
     * went down meanwhile.
     */
    public <T> Mono<T> within(Mono<T> call, Duration timeout, StoreState state) {
        return Mono.defer(() -> {
            long left = budgetNanos - waitedNanos.get();
            if (left <= 0) return Mono.error(SPENT);
            boolean cut = left < timeout.toNanos();
            Duration limit = cut ? Duration.ofNanos(left) : timeout;
            Mono<T> expired = Mono.delay(limit).then(cut ? Mono.error(SPENT) : Mono.error(() -> expired(limit)));
            Mono<T> raced = state == null
                    ? Mono.firstWithSignal(call, expired)
                    : Mono.firstWithSignal(call, expired, state.whenDown().then(Mono.error(WENT_DOWN)));
            if (this == UNLIMITED) return raced; // shared by all: nothing to count
            long start = nanoClock.getAsLong();
            // Taken at the first signal, before it goes on: doFinally runs after the caller has the value, so the
            // request's next store call (or a caller reading waited()) could start before this wait was counted.
            AtomicBoolean taken = new AtomicBoolean();
            Runnable take = () -> {
                if (taken.compareAndSet(false, true)) waitedNanos.addAndGet(Math.max(0, nanoClock.getAsLong() - start));
            };
            return raced.doOnEach(signal -> take.run()).doOnCancel(take);
        });
    }

    /** The same, without the store's state (a call whose store falls back on its own when Redis goes down). */
    public <T> Mono<T> within(Mono<T> call, Duration timeout) {
        return within(call, timeout, null);
    }

    /** Whether a failed call is evidence that the store is down (not a cut, not the store already marked down). */
    public static boolean marksDown(Throwable e) {
        return !(e instanceof Spent) && e != WENT_DOWN;
    }

    private static final StoreUnavailableException WENT_DOWN =
            new StoreUnavailableException("Redis was marked down by another call while this one waited");

    private static TimeoutException expired(Duration limit) {
        return new TimeoutException("no answer within " + limit.toMillis() + " ms");
    }
}
