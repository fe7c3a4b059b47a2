package dev.sluice.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class PendingWorkTest {
    @Test
    void shutdownWaitsForDetachedWorkAndNotLonger() throws InterruptedException {
        PendingWork pending = new PendingWork();
        Sinks.Empty<Void> settle = Sinks.empty();
        Sinks.Empty<Void> release = Sinks.empty();
        pending.run(settle.asMono());
        pending.run(release.asMono().then(Mono.error(new IllegalStateException("store down")))); // failures end too
        assertThat(pending.pending()).isEqualTo(2);
        assertThat(pending.awaitIdle(Duration.ZERO)).isFalse();

        settle.tryEmitEmpty();
        release.tryEmitEmpty();
        assertThat(pending.awaitIdle(Duration.ofSeconds(5))).isTrue();
        assertThat(pending.pending()).isZero();
    }
}
