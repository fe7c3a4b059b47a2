package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.lab.scenario.PageText;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import tools.jackson.databind.json.JsonMapper;

/**
 * Seed 000, case 2: three users each fire a 100-page book at once (Promise.all), nothing in front.
 * Each page is ~600 prompt tokens + max_tokens 200 ≈ 800 tokens. The provider has the seed's limits,
 * including its 2 s per call: a shorter call would let early pages finish while a slow machine is
 * still sending the burst, and the test would measure the machine.
 */
class SeedCase2AllPagesAtOnceTest {

    private static final int USERS = 3;
    private static final int PAGES = 100;
    private static final int CALLS = USERS * PAGES;

    private ProviderSimulator simulator;
    private LabProviderServer server;
    private LabHttp http;

    @BeforeEach
    void start() {
        // The lab provider's calls take about 2 s; 5 s here keeps the whole burst of 300 in flight together even
        // on a loaded 2-core CI box, where firing them can itself take a second or two.
        simulator = new ProviderSimulator(LabLimits.DEFAULTS.withLatency(Duration.ofSeconds(5)));
        server = new LabProviderServer(simulator, 0, Clock.systemUTC());
        server.start();
        // Seed case 5: a pool smaller than the burst would queue pages on our side and we would be
        // measuring the pool, not the provider. Allow every call its own connection.
        http = new LabHttp("http://127.0.0.1:" + server.port(), CALLS + 100);
        // A production client's pool is warm. Opening 300 connections cold takes longer than a call on a
        // small CI machine, which would spread the burst out and blur what this test measures.
        Flux.range(0, CALLS)
                .flatMap(i -> http.send("GET", "/v1/models", null, true), CALLS)
                .blockLast(Duration.ofSeconds(20));
    }

    @AfterEach
    void stop() {
        http.close();
        server.stop();
    }

    record Outcome(int status, long atMillis, String retryAfter, long promptTokens) {}

    private List<Outcome> uploadBooks(int round) {
        long start = System.nanoTime();
        return Flux.range(0, CALLS)
                // flatMap's default concurrency is 256: it has to be raised or it is a queue too.
                .flatMap(
                        i -> {
                            String body = PageText.chatBody("user-" + (i / PAGES), round, i % PAGES);
                            return http.send("POST", "/v1/chat/completions", body, true)
                                    .map(reply -> new Outcome(
                                            reply.status(),
                                            (System.nanoTime() - start) / 1_000_000,
                                            reply.header("retry-after"),
                                            reply.status() == 200
                                                    ? JsonMapper.shared()
                                                            .readTree(reply.body())
                                                            .path("usage")
                                                            .path("prompt_tokens")
                                                            .asLong()
                                                    : 0));
                        },
                        CALLS)
                .collectList()
                .block(Duration.ofSeconds(20));
    }

    private static Map<Integer, Long> byStatus(List<Outcome> outcomes) {
        return outcomes.stream().collect(Collectors.groupingBy(Outcome::status, Collectors.counting()));
    }

    @Test
    void threeBooksAtOnceBreakTheProviderInTheFirstSecond() {
        long wave1Sent = System.nanoTime();
        List<Outcome> wave1 = uploadBooks(1);
        Map<Integer, Long> statuses = byStatus(wave1);
        long ok = statuses.getOrDefault(200, 0L);
        long overloaded = statuses.getOrDefault(503, 0L);
        long limited = statuses.getOrDefault(429, 0L);

        assertThat(ok + overloaded + limited).isEqualTo(CALLS);
        // 300 pages against 200 in flight: a third of the burst dies at once.
        assertThat(overloaded + limited).isGreaterThanOrEqualTo(100);
        assertThat(ok).isLessThanOrEqualTo(200);
        // The pages die before the first page is even answered (2 s).
        long firstAnswer = wave1.stream()
                .filter(o -> o.status() == 200)
                .mapToLong(Outcome::atMillis)
                .min()
                .orElseThrow();
        assertThat(wave1.stream().filter(o -> o.status() != 200)).allSatisfy(o -> {
            assertThat(o.atMillis()).isLessThan(firstAnswer);
            assertThat(o.retryAfter()).isNotBlank();
        });
        long prompt = wave1.stream()
                .filter(o -> o.status() == 200)
                .mapToLong(Outcome::promptTokens)
                .max()
                .orElseThrow();
        assertThat(prompt).isBetween(590L, 630L);

        LabStats stats = server.stats();
        assertThat(stats.received()).isEqualTo(CALLS);
        assertThat(stats.admitted()).isEqualTo(ok);
        assertThat(stats.rejected503()).isEqualTo(overloaded);
        assertThat(stats.rejected429()).isEqualTo(limited);
        assertThat(stats.maxInFlightSeen()).isEqualTo(200);
        assertThat(stats.currentInFlight()).isZero();
        // We still pay for every page that got through (prompts differ by a token or two).
        assertThat(stats.tokensBilled()).isBetween(ok * (prompt - 5 + 200), ok * (prompt + 200));
        assertThat(stats.costUsd()).isEqualTo(stats.tokensBilled() * 3.0 / 1e6, within(1e-9));

        // The same three users upload their next book: now the minute's tokens run out (429 on TPM).
        // Those 429s are immediate; shorter calls only keep the test quick.
        simulator.setLimits(simulator.limits().withLatency(Duration.ofMillis(300)));
        List<Outcome> wave2 = uploadBooks(2);
        long sinceWave1 = (System.nanoTime() - wave1Sent) / 1_000_000_000 + 1; // whole seconds, rounded up
        Map<Integer, Long> statuses2 = byStatus(wave2);
        LabStats after = server.stats();
        assertThat(statuses2.getOrDefault(429, 0L)).isGreaterThanOrEqualTo(100);
        assertThat(after.rejected429Tokens()).isEqualTo(statuses2.getOrDefault(429, 0L));
        assertThat(after.maxTokensInWindow()).isLessThanOrEqualTo(300_000).isGreaterThan(290_000);
        // Retry-after says when the first wave's tokens leave the rolling minute, not "try again now":
        // a minute after they were charged, however long this machine took to get here.
        assertThat(wave2.stream()
                        .filter(o -> o.status() == 429)
                        .map(Outcome::retryAfter)
                        .map(Long::parseLong))
                .allSatisfy(s -> assertThat(s).isBetween(59L - sinceWave1, 60L));

        Map<Integer, Long> total = byStatus(Flux.concat(Flux.fromIterable(wave1), Flux.fromIterable(wave2))
                .collectList()
                .block());
        assertThat(after.rejected429() + after.rejected503())
                .isEqualTo(total.getOrDefault(429, 0L) + total.getOrDefault(503, 0L));
    }
}
