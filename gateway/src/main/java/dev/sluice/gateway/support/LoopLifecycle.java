package dev.sluice.gateway.support;

import org.springframework.context.SmartLifecycle;

/**
 * Background loops started with the Spring context and stopped with it (and started again: a cached
 * test context is stopped and restarted, see {@link Periodic}): runs {@code start} and {@code stop},
 * and says it is running between them.
 */
public final class LoopLifecycle implements SmartLifecycle {
    private final Runnable start;
    private final Runnable stop;
    private volatile boolean running;

    public LoopLifecycle(Runnable start, Runnable stop) {
        this.start = start;
        this.stop = stop;
    }

    @Override
    public void start() {
        start.run();
        running = true;
    }

    @Override
    public void stop() {
        stop.run();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
