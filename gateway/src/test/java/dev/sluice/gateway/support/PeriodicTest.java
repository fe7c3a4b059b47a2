package dev.sluice.gateway.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The periodic-task helper on virtual time: ticks, stops, starts again, never runs twice at once. */
class PeriodicTest {
    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void dispose() {
        time.dispose();
    }

    @Test
    void runsEveryIntervalAfterTheFirstDelay() {
        Periodic p = new Periodic("count", () -> Mono.fromRunnable(runs::incrementAndGet), time);
        p.start(Duration.ZERO, Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ZERO);
        assertThat(runs).hasValue(1);
        time.advanceTimeBy(Duration.ofSeconds(3));
        assertThat(runs).hasValue(4);
        p.stop();
    }

    /** Spring Framework 7 stops a cached test context and starts it again: the loop must come back. */
    @Test
    void startsAgainAfterAStop() {
        Periodic p = new Periodic("count", () -> Mono.fromRunnable(runs::incrementAndGet), time);
        p.start(Duration.ofSeconds(1), Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofSeconds(2));
        p.stop();
        assertThat(p.isRunning()).isFalse();
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(runs).hasValue(2);

        p.start(Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(p.isRunning()).isTrue();
        time.advanceTimeBy(Duration.ofSeconds(2));
        assertThat(runs).hasValue(4);
        p.stop();
    }

    @Test
    void aStartWhileRunningStartsOverInsteadOfAddingASecondLoop() {
        Periodic p = new Periodic("count", () -> Mono.fromRunnable(runs::incrementAndGet), time);
        p.start(Duration.ofSeconds(1), Duration.ofSeconds(1));
        p.start(Duration.ofSeconds(1), Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofSeconds(3));
        assertThat(runs).hasValue(3);
        p.stop();
    }

    @Test
    void ticksThatComeDuringASlowRunAreDroppedAndAFailureDoesNotEndTheLoop() {
        Sinks.Empty<Void> slow = Sinks.empty();
        Periodic p = new Periodic(
                "slow",
                () -> runs.incrementAndGet() == 1 ? slow.asMono() : Mono.error(new IllegalStateException("store down")),
                time);
        p.start(Duration.ofSeconds(1), Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofSeconds(10)); // the first run is still going: nine ticks dropped
        assertThat(runs).hasValue(1);
        slow.tryEmitEmpty();
        int afterSlow = runs.get();
        assertThat(afterSlow).isBetween(1, 2); // at most one tick waited its turn; the others were dropped
        time.advanceTimeBy(Duration.ofSeconds(2)); // these fail, and the loop goes on
        assertThat(runs).hasValue(afterSlow + 2);
        p.stop();
    }
}
