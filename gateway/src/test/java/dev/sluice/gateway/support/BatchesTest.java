package dev.sluice.gateway.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The keyed batches on virtual time: the owner's tick runs every interval; shutdown sends every batch, then work goes at once. */
class BatchesTest {
    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final AtomicInteger ticks = new AtomicInteger();
    final List<String> sent = new ArrayList<>();

    @AfterEach
    void dispose() {
        time.dispose();
    }

    Batches<String, List<String>> batches(VirtualTimeScheduler timer) {
        return new Batches<>(
                "test",
                k -> new ArrayList<>(),
                Duration.ofMillis(50),
                timer,
                ticks::incrementAndGet,
                (key, batch) -> batch.isEmpty() ? null : Mono.fromRunnable(() -> sent.add(key + "=" + batch)));
    }

    @Test
    void theOwnersTickRunsEveryIntervalUntilClosed() {
        Batches<String, List<String>> b = batches(time);
        time.advanceTimeBy(Duration.ofMillis(49));
        assertThat(ticks).hasValue(0);
        time.advanceTimeBy(Duration.ofMillis(101));
        assertThat(ticks).hasValue(3);
        b.close();
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(ticks).hasValue(3);
    }

    @Test
    void aFlushSendsEveryBatchThatHoldsSomethingAndGoesDirectUntilResumed() {
        Batches<String, List<String>> b = batches(null);
        b.of("a").add("1");
        b.of("b");
        assertThat(b.direct()).isFalse();
        b.flush(Duration.ofSeconds(1));
        assertThat(sent).containsExactly("a=[1]");
        assertThat(b.direct()).isTrue();
        b.resume();
        assertThat(b.direct()).isFalse();
    }

    @Test
    void aFlushWaitsForItsSendsWithinTheWait() {
        Sinks.Empty<Void> slow = Sinks.empty();
        Batches<String, List<String>> b = new Batches<>(
                "slow", k -> new ArrayList<>(), Duration.ofMillis(50), null, () -> {}, (key, batch) -> slow.asMono());
        b.of("a");
        long start = System.nanoTime();
        try {
            b.flush(Duration.ofMillis(100));
        } catch (IllegalStateException timedOut) {
            // block(wait) gives up: the shutdown step that called it says so
        }
        assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(100);
    }

    @Test
    void aForgottenKeyStartsAnEmptyBatch() {
        Batches<String, List<String>> b = batches(null);
        List<String> first = b.of("a");
        first.add("1");
        assertThat(b.get("a")).isSameAs(first);
        b.forget("a", first);
        assertThat(b.get("a")).isNull();
        assertThat(b.of("a")).isEmpty();
    }
}
