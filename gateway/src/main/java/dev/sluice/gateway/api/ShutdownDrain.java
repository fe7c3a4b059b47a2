package dev.sluice.gateway.api;

import dev.sluice.gateway.support.Drainable;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Mono;

/**
 * Shutdown in the order that leaves nothing behind. Lifecycles stop from the highest phase down:
 * <ol>
 * <li>{@link CloseTheLines} (above the web server's graceful shutdown): requests waiting in a
 * dispatch queue are answered 503 {@code gateway_busy} with Retry-After and refunded, at once;
 * waiting out their X-Sluice-Max-Wait would hold the drain for minutes;</li>
 * <li>the web server's graceful shutdown: calls and streams in flight finish, within
 * {@code spring.lifecycle.timeout-per-shutdown-phase};</li>
 * <li>{@link FlushPendingWork} (below the web server, above the Redis client at phase 0): the
 * settlements, lease releases and corrections those calls started in the background reach Redis
 * before its client closes, so no lease is left to expire and no settlement is lost;</li>
 * <li>{@link FlushBatches} (after it, still above the Redis client): what the capabilities hold
 * back in batches ({@link Drainable}) is sent.</li>
 * </ol>
 * Neither may let an error escape: a failure here (once, logback's classes already gone) would end
 * the shutdown hook and every stream with it. Logging is best effort.
 */
public final class ShutdownDrain {
    private static final Logger log = LoggerFactory.getLogger(ShutdownDrain.class);
    /** The longest the flush waits (or the phase timeout, when shorter). */
    static final Duration FLUSH_MAX = Duration.ofSeconds(8);

    private ShutdownDrain() {}

    /** Logs unless the logging system is already torn down; never throws. */
    static void say(String message, Object... args) {
        try {
            log.info(message, args);
        } catch (Throwable ignored) { // LinkageError from a closed logging system: the drain matters more
        }
    }

    private abstract static class Phase implements SmartLifecycle {
        private volatile boolean running;

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            try {
                drain();
            } catch (Throwable e) {
                say("Shutdown drain step failed: {}", e.toString());
            } finally {
                running = false;
            }
        }

        abstract void drain() throws Exception;

        @Override
        public boolean isRunning() {
            return running;
        }
    }

    /** Where requests wait for their turn to be sent (the dispatch queues). */
    public interface Lines {
        /** Every waiting request answered busy, and no more taken; completes once the lines are empty. */
        Mono<Void> close();

        /** Takes requests again after {@link #close()}. */
        void open();
    }

    public static final class CloseTheLines extends Phase {
        private final Lines lines;

        public CloseTheLines(Lines lines) {
            this.lines = lines;
        }

        /** A stop is not always the end: a context started again after one (Spring's test contexts pause so) serves again. */
        @Override
        public void start() {
            lines.open();
            super.start();
        }

        @Override
        void drain() {
            lines.close().block(Duration.ofSeconds(5));
            say("Shutdown: dispatch queues closed, waiting requests answered busy");
        }

        @Override
        public int getPhase() {
            return SmartLifecycle.DEFAULT_PHASE - 512; // WebServerGracefulShutdownLifecycle is at DEFAULT_PHASE - 1024
        }
    }

    public static final class FlushPendingWork extends Phase {
        private final PendingWork pending;
        private final Duration max;

        /**
         * @param phase the shutdown phase's timeout. Store calls are bounded by their own timeouts (seconds): the
         *              flush needs seconds, not another whole phase, which the chart's terminationGracePeriodSeconds
         *              (preStop + drain + 10 s margin) has no room for
         */
        public FlushPendingWork(PendingWork pending, Duration phase) {
            this.max = phase.compareTo(FLUSH_MAX) < 0 ? phase : FLUSH_MAX;
            this.pending = pending;
        }

        @Override
        void drain() throws InterruptedException {
            int before = pending.pending();
            boolean done = pending.awaitIdle(max);
            say(
                    "Shutdown: {} background store calls flushed{}",
                    before,
                    done ? "" : "; " + pending.pending() + " still pending after " + max);
        }

        @Override
        public int getPhase() {
            return 1_024; // after the web server (DEFAULT_PHASE - 2048), before the Redis client (phase 0)
        }
    }

    /**
     * After the background calls, before the Redis client stops: the settlements waiting in
     * batches are sent, and this replica's slices and spare slots given back, so the next replica
     * finds only what was spent. One after the other, in their order; a flush that fails ends the step.
     */
    public static final class FlushBatches extends Phase {
        private final Supplier<List<Drainable>> find;
        private volatile List<Drainable> batched = List.of();

        /** @param find what holds work back, asked at each start */
        public FlushBatches(Supplier<List<Drainable>> find) {
            this.find = find;
        }

        /** A stop is not always the end (test contexts are stopped and started again): batch again. */
        @Override
        public void start() {
            batched = List.copyOf(find.get());
            batched.forEach(Drainable::resume);
            super.start();
        }

        @Override
        void drain() {
            for (Drainable d : batched) d.flush(Duration.ofSeconds(2));
            say("Shutdown: batched settlements sent, slices given back");
        }

        @Override
        public int getPhase() {
            return 512; // after FlushPendingWork (1024), before the Redis client (phase 0)
        }
    }
}
