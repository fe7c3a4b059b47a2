package dev.sluice.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.dispatch.budget.ProviderClock;
import dev.sluice.gateway.dispatch.health.ProviderHealth;
import dev.sluice.gateway.testsupport.FakeUpstream;
import dev.sluice.gateway.testsupport.FakeUpstreamExtension;
import dev.sluice.gateway.testsupport.GatewayTest;
import dev.sluice.gateway.testsupport.TestTiers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A provider that takes the connection and never answers, over real HTTP, first on its route:
 * with {@code sluice.dispatch.failover.first-byte-timeout} a call waits that long for its
 * headers, then the next provider serves it; three such calls open the circuit; the probe that
 * follows waits only the probe timeout. A model with no other provider is not cut: it waits as
 * long as the HTTP client does.
 */
@GatewayTest(
        properties = {
            "sluice.demo.tenants=true",
            "sluice.dispatch.failover.first-byte-timeout=5s",
            "sluice.dispatch.failover.probe-timeout=300ms",
            // Long enough that the call after the circuit opens is not already the probe.
            "sluice.dispatch.failover.cooldown=3s"
        })
class LateProviderTest {
    @RegisterExtension
    static final FakeUpstreamExtension SILENT = FakeUpstreamExtension.start((req, res) -> Mono.never());

    @RegisterExtension
    static final FakeUpstreamExtension SECONDARY = FakeUpstreamExtension.answering(FakeUpstream.CHAT_ANSWER);

    @DynamicPropertySource
    static void providers(DynamicPropertyRegistry registry) throws IOException {
        String tiers = """
                tiers:
                  pro: {tokens-per-minute: 1000000, requests-per-minute: 10000, priority: 2}
                providers:
                  - name: silent
                    base-url: %s
                    models:
                      gpt-4o-mini: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10}
                  - name: silent-alone
                    base-url: %s
                    models:
                      alone: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 10}
                  - name: secondary
                    base-url: %s
                    models:
                      gpt-4o-mini: {requests-per-minute: 6000, tokens-per-minute: 1000000, max-in-flight: 100}
                routes:
                  gpt-4o-mini: [silent, secondary]
                """.formatted(SILENT.baseUrl(), SILENT.baseUrl(), SECONDARY.baseUrl());
        String file = TestTiers.written("late-provider/tiers.yaml", tiers + TestTiers.DEMO_PRO);
        registry.add("sluice.tiers.path", () -> file);
    }

    @Autowired
    WebTestClient client;

    @Autowired
    Dispatchers dispatchers;

    @Autowired
    ProviderClock clock;

    @Autowired
    MeterRegistry meters;

    Mono<EntityExchangeResult<String>> chat(String model, Duration wait) {
        return Mono.fromCallable(() -> client.mutate()
                        .responseTimeout(wait)
                        .build()
                        .post()
                        .uri("/v1/chat/completions")
                        .header("Authorization", "Bearer sk-sluice-demo-pro")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{\"model\":\"" + model
                                + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                        .exchange()
                        .expectBody(String.class)
                        .returnResult())
                .subscribeOn(Schedulers.boundedElastic());
    }

    static long elapsedMs(long startedNanos) {
        return Duration.ofNanos(System.nanoTime() - startedNanos).toMillis();
    }

    @Test
    void aProviderThatNeverAnswersIsLeftAfterTheFirstByteTimeoutThenSteppedAroundThenProbedBriefly() {
        ProviderHealth health = dispatchers.health("silent");
        double failoversBefore = failovers();
        int sent = SILENT.requests().size();

        // Three calls at once: each waits the first-byte timeout (5 s) at the silent provider, then the secondary
        // serves it.
        long started = System.nanoTime();
        List<EntityExchangeResult<String>> first = Flux.range(0, 3)
                .flatMap(i -> chat("gpt-4o-mini", Duration.ofSeconds(60)))
                .collectList()
                .block(Duration.ofSeconds(60));
        long firstMs = elapsedMs(started);
        assertThat(first).allSatisfy(r -> {
            assertThat(r.getStatus().value()).isEqualTo(200);
            assertThat(r.getResponseHeaders().getFirst(DispatchFilter.PROVIDER_HEADER))
                    .isEqualTo("secondary");
        });
        assertThat(SILENT.requests())
                .as("each went to the silent provider first")
                .hasSize(sent + 3);
        assertThat(firstMs)
                .as("not the HTTP client's 300 s, nor before the timeout")
                .isBetween(5_000L, 30_000L);
        assertThat(failovers() - failoversBefore).isEqualTo(3);
        assertThat(health.state()).as("three failures in a row").isEqualTo(ProviderHealth.State.OPEN);

        // While open it gets nothing: the next call goes to the secondary without waiting.
        assertThat(health.blockedForMs(clock.clock().millis())).isPositive();
        EntityExchangeResult<String> around =
                chat("gpt-4o-mini", Duration.ofSeconds(30)).block();
        assertThat(around.getResponseHeaders().getFirst(DispatchFilter.PROVIDER_HEADER))
                .isEqualTo("secondary");
        assertThat(SILENT.requests()).hasSize(sent + 3);

        // Once its period is over, one call probes it, and is left after the probe timeout (300 ms), not 5 s.
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> health.probeDue(clock.clock().millis()));
        long probeStarted = System.nanoTime();
        EntityExchangeResult<String> probed =
                chat("gpt-4o-mini", Duration.ofSeconds(30)).block();
        long probeMs = elapsedMs(probeStarted);
        assertThat(probed.getStatus().value()).isEqualTo(200);
        assertThat(probed.getResponseHeaders().getFirst(DispatchFilter.PROVIDER_HEADER))
                .isEqualTo("secondary");
        assertThat(SILENT.requests())
                .as("the probe went to the silent provider")
                .hasSize(sent + 4);
        assertThat(probeMs)
                .as("the probe timeout, well under the first-byte timeout")
                .isLessThan(4_000);
        assertThat(health.state()).as("the failed probe opened it again").isEqualTo(ProviderHealth.State.OPEN);
    }

    @Test
    void withNoOtherProviderTheCallIsNotCut() {
        // "alone" is served by the silent provider only (under another name, so the other test's circuit is not
        // its own): nothing to fail over to, so no first-byte timeout applies.
        // The client gives up at 7 s, past the 5 s timeout; the call is still waiting at the provider.
        int before = SILENT.requests().size();
        Mono<EntityExchangeResult<String>> waiting =
                chat("alone", Duration.ofSeconds(7)).onErrorResume(e -> Mono.empty());
        long started = System.nanoTime();
        EntityExchangeResult<String> r = waiting.block(Duration.ofSeconds(20));
        assertThat(r).as("no answer: not a 504 after 5 s").isNull();
        assertThat(elapsedMs(started)).isGreaterThanOrEqualTo(6_500);
        assertThat(SILENT.requests()).hasSize(before + 1);
    }

    double failovers() {
        var c = meters.find("sluice.upstream.retries")
                .tag("status", "failover")
                .tag("provider", "silent")
                .counter();
        return c == null ? 0 : c.count();
    }
}
