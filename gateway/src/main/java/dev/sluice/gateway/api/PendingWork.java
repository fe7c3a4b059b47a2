package dev.sluice.gateway.api;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import reactor.core.publisher.Mono;

/**
 * Store calls that finish a request after its answer has gone (a quota settle, a lease release,
 * a budget correction) run detached: nothing that cancels the exchange may stop them. Detached
 * is not forgotten: they are counted here, so shutdown can wait for the last of them before the
 * Redis client closes, instead of leaving leases to expire and settlements lost.
 */
public final class PendingWork {
    private final AtomicInteger pending = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();

    /** Starts {@code work} now, detached; its errors are the caller's to handle inside it (here they are dropped). */
    public void run(Mono<?> work) {
        pending.incrementAndGet();
        work.doFinally(signal -> done()).subscribe(null, error -> {});
    }

    private void done() {
        if (pending.decrementAndGet() > 0) return;
        lock.lock();
        try {
            idle.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public int pending() {
        return pending.get();
    }

    /** Blocks until nothing is pending or {@code max} has passed; true when nothing is. */
    public boolean awaitIdle(Duration max) throws InterruptedException {
        long left = max.toNanos();
        lock.lock();
        try {
            while (pending.get() > 0) {
                if (left <= 0) return false;
                left = idle.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** For tests and tools that build the parts by hand: nothing waits on it at shutdown. */
    public static PendingWork untracked() {
        return new PendingWork();
    }
}
