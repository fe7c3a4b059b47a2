package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** The load generator against real HTTP servers: it keeps its schedule, and a slow server shows in full. */
class OpenLoopTest {

    @Test
    void sendsEveryScheduledRequestAndCountsEveryAnswer() {
        DisposableServer provider = FakeProvider.start(0);
        try (OpenLoop load = new OpenLoop(
                "t",
                URI.create("http://127.0.0.1:" + provider.port() + "/v1/chat/completions"),
                "sk-test",
                FakeProvider.REQUEST)) {
            assertThat(load.once().body()).isEqualTo(FakeProvider.RESPONSE);
            OpenLoop.Step step = load.run(200, Duration.ofSeconds(1));
            assertThat(step.sent()).isEqualTo(200);
            assertThat(step.ok()).isEqualTo(200);
            assertThat(step.errors()).isZero();
            assertThat(step.latencyUs().getTotalCount()).isEqualTo(200);
        } finally {
            provider.disposeNow();
        }
    }

    /**
     * Coordinated omission: with one connection and a server that takes 20 ms a call, 100 calls
     * due over one second cannot all be sent on time; each waits for the connection. Timed from
     * when it was sent, each would look like 20 ms. Timed from when it was due, as here, the
     * backlog shows: the last call was due at 0.99 s and answered no earlier than 2 s.
     */
    @Test
    void latencyCountsFromWhenARequestWasDueNotFromWhenItCouldBeSent() {
        DisposableServer slow = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle((req, res) -> req.receive()
                        .then(Mono.delay(Duration.ofMillis(20)))
                        .then(res.sendString(Mono.just("{}")).then()))
                .bindNow();
        try (OpenLoop load = new OpenLoop(
                "t", URI.create("http://127.0.0.1:" + slow.port() + "/"), "sk-test", FakeProvider.REQUEST, 1)) {
            OpenLoop.Step step = load.run(100, Duration.ofSeconds(1));
            assertThat(step.errors()).isZero();
            assertThat(step.latencyUs().getMaxValue()).isGreaterThanOrEqualTo(1_000_000);
            assertThat(step.latencyUs().getValueAtPercentile(50)).isGreaterThanOrEqualTo(400_000);
        } finally {
            slow.disposeNow();
        }
    }
}
