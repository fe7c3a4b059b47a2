package dev.sluice.gateway.support;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A task run at a fixed interval, off the request path, that can be stopped and started again:
 * Spring Framework 7 pauses a cached test context with {@code Lifecycle.stop} and resumes it with
 * {@code start}, so a loop that only started once would stay dead in every later test.
 * <p>One run at a time: a tick that comes while the previous run is still going is dropped, not
 * queued (a slow store must not pile work up). A run that fails is logged and the next tick runs
 * anyway; tasks handle the errors they expect themselves.
 */
public final class Periodic {
    private static final Logger log = LoggerFactory.getLogger(Periodic.class);

    private final String name;
    private final Supplier<? extends Mono<?>> task;
    private final Scheduler scheduler;
    private Disposable ticking;

    /** @param name what the task does, for the log */
    public Periodic(String name, Supplier<? extends Mono<?>> task) {
        this(name, task, Schedulers.parallel());
    }

    /** @param scheduler where the ticks come from (tests pass a virtual-time one) */
    public Periodic(String name, Supplier<? extends Mono<?>> task, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name, "name");
        this.task = Objects.requireNonNull(task, "task");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** Runs the task after {@code first}, then every {@code every}; a start while running starts over. */
    public synchronized void start(Duration first, Duration every) {
        stop();
        ticking = Flux.interval(first, every, scheduler)
                .onBackpressureDrop()
                .concatMap(
                        tick -> Mono.defer(task).then().onErrorResume(e -> {
                            log.debug("{} failed: {}", name, e.toString());
                            return Mono.empty();
                        }),
                        1)
                .subscribe();
    }

    /** Stops the ticks; a run under way is cancelled. Safe to call when not started. */
    public synchronized void stop() {
        if (ticking != null) ticking.dispose();
        ticking = null;
    }

    public synchronized boolean isRunning() {
        return ticking != null && !ticking.isDisposed();
    }
}
