package dev.sluice.gateway.acceptance;

import static dev.sluice.gateway.acceptance.TwoProviders.PRIMARY;
import static dev.sluice.gateway.acceptance.TwoProviders.SECONDARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.gateway.acceptance.SeedCrowd.Client;
import dev.sluice.gateway.acceptance.SeedCrowd.Page;
import dev.sluice.gateway.acceptance.SeedCrowd.Reply;
import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.lab.independent.IndependentProvider;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17 end to end: a gateway with two independent providers ({@code provider.mjs}, two Node processes, each with
 * its own port and key) of gpt-4o-mini on the route {@code [primary, secondary]}, given by {@code SLUICE_TIERS_PATH},
 * the primary small (2 calls in flight against 20), and a crowd of closed-loop clients that keeps both busy. The
 * primary's process is killed mid-crowd (SIGKILL: its calls in flight are cut, new connections refused) and started
 * again on its port. The minute's budgets are far above what the crowd spends: only the calls in flight bind, so
 * what the test sees is the spill and the failover, not the minute's turn. Skipped without Node, like
 * {@code IndependentProviderTest}.
 */
class TwoProvidersFailoverTest {
    /** Concurrency the crowd keeps up: far more than the primary's 2 calls in flight, less than both providers' 22. */
    static final int CLIENTS = 12;

    static final Duration MAX_COOLDOWN = Duration.ofSeconds(2);
    /** How long the primary stays down: long enough for its circuit to open and a probe to fail. */
    static final Duration DOWN = Duration.ofSeconds(3);
    /** A loaded 2-core machine's slack on top of what the gateway promises. */
    static final Duration MARGIN = Duration.ofSeconds(3);

    static final String PRIMARY_KEY_ENV = "SLUICE_PROVIDER_PRIMARY_KEY";
    static final String SECONDARY_KEY_ENV = "SLUICE_PROVIDER_SECONDARY_KEY";
    static final String PRIMARY_KEY = "sk-primary-" + ApiKeys.generate();
    static final String SECONDARY_KEY = "sk-secondary-" + ApiKeys.generate();

    final List<AutoCloseable> open = new ArrayList<>();
    IndependentProvider primary;
    IndependentProvider secondary;

    @BeforeAll
    static void node() {
        assumeTrue(IndependentProvider.nodeAvailable(), "node 18+ is needed for the independent provider");
    }

    /** Minute budgets no crowd of this test spends, ~300 ms a call; {@code port} 0: a free one. */
    static IndependentProvider provider(int port, int maxInFlight, int seed, String key) {
        return IndependentProvider.startOn(
                port,
                "--rpm=100000",
                "--tpm=10000000",
                "--in-flight=" + maxInFlight,
                "--latency-ms=300",
                "--jitter=0.3",
                "--seed=" + seed,
                "--api-key=" + key);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) open.get(i).close();
        if (primary != null) primary.close();
        if (secondary != null) secondary.close();
    }

    @Test
    @Timeout(90)
    void theSecondaryTakesOverWhenThePrimaryDiesAndThePrimaryServesAgainWhenBack() {
        primary = provider(0, 2, 42, PRIMARY_KEY);
        secondary = provider(0, 20, 43, SECONDARY_KEY);
        int primaryPort = primary.port();
        Path tiers = TwoProviders.write(
                Path.of("target/two-providers/tiers.yaml"),
                new TwoProviders.Provider(PRIMARY, primary.baseUrl(), PRIMARY_KEY_ENV, 100_000, 10_000_000, 2),
                new TwoProviders.Provider(SECONDARY, secondary.baseUrl(), SECONDARY_KEY_ENV, 100_000, 10_000_000, 20),
                SeedCrowd.HEADROOM);
        // Each provider checks its own key: a call sent with the other's would be a 401, and a failed page here.
        GatewayReplica gateway = GatewayReplica.builder()
                .environment("SLUICE_TIERS_PATH", tiers)
                .environment(PRIMARY_KEY_ENV, PRIMARY_KEY)
                .environment(SECONDARY_KEY_ENV, SECONDARY_KEY)
                .properties(
                        "spring.main.banner-mode=off",
                        "server.shutdown=immediate",
                        "sluice.calibration.default-ratio=1.0",
                        "sluice.dispatch.failover.cooldown=500ms",
                        "sluice.dispatch.failover.max-cooldown=" + MAX_COOLDOWN.toMillis() + "ms")
                .start();
        open.add(gateway);
        String key = SeedCrowd.tenant(gateway, "crowd");
        Client client = new Client(CLIENTS + 10);
        open.add(client);
        client.warm(CLIENTS, gateway.port());

        ConcurrentLinkedQueue<Reply> replies = new ConcurrentLinkedQueue<>();
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicInteger pages = new AtomicInteger();
        long start = System.nanoTime();
        // Each client sends a page, waits for its answer and sends the next, until told to stop.
        Mono<Void> crowd = Flux.range(0, CLIENTS)
                .flatMap(
                        c -> Mono.defer(() -> {
                                    Page page = new Page("crowd", key, c, pages.incrementAndGet());
                                    return client.send(gateway.port(), page, start)
                                            .onErrorResume(e -> Mono.just(new Reply(
                                                    page,
                                                    -1,
                                                    0,
                                                    SeedCrowd.sinceMs(start),
                                                    0,
                                                    null,
                                                    "{\"error\":{\"message\":\"" + e + "\"}}")));
                                })
                                .doOnNext(replies::add)
                                .repeat(() -> !stopping.get()),
                        CLIENTS)
                .then()
                .cache();
        crowd.subscribe();

        // (a) with both up, the primary serves, and what it cannot start within the spill wait goes to the secondary.
        // A few pages each, so the kill finds the primary at work (its two slots taken).
        await().atMost(Duration.ofSeconds(20))
                .until(() -> served(replies, PRIMARY, 0) >= 5 && served(replies, SECONDARY, 0) >= 5);

        JsonNode firstLife = primary.stats(); // the process takes its counters with it
        long killedAt = SeedCrowd.sinceMs(start);
        primary.kill();
        primary = null;

        // (d) pages sent after the death are served by the secondary within a few seconds; then it stays down a while.
        await().atMost(DOWN.plus(MARGIN)).until(() -> servedSentAfter(replies, SECONDARY, killedAt) > 0);
        long firstAfterKill = replies.stream()
                        .filter(r -> r.status() == 200 && r.sentMs() > killedAt)
                        .mapToLong(Reply::doneMs)
                        .min()
                        .orElseThrow()
                - killedAt;
        await().atMost(DOWN.plus(MARGIN)).until(() -> SeedCrowd.sinceMs(start) >= killedAt + DOWN.toMillis());

        primary = provider(primaryPort, 2, 44, PRIMARY_KEY);
        long restoredAt = SeedCrowd.sinceMs(start);
        // (e) its circuit's probe goes within the longest cooldown; the probe's success closes it.
        try {
            await().atMost(MAX_COOLDOWN.plus(MARGIN)).until(() -> served(replies, PRIMARY, restoredAt) > 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "the primary, back at " + restoredAt + " ms, served nothing within " + MAX_COOLDOWN.plus(MARGIN)
                            + "; the gateway's view: " + gatewayState(gateway),
                    e);
        }
        long backAfter = replies.stream()
                        .filter(r -> r.status() == 200 && PRIMARY.equals(r.provider()) && r.doneMs() > restoredAt)
                        .mapToLong(Reply::doneMs)
                        .min()
                        .orElseThrow()
                - restoredAt;

        stopping.set(true);
        crowd.block(Duration.ofSeconds(30));
        List<Reply> all = List.copyOf(replies);
        Map<Integer, Long> byStatus =
                new TreeMap<>(all.stream().collect(Collectors.groupingBy(Reply::status, Collectors.counting())));
        Map<String, Long> byProvider = new TreeMap<>(all.stream()
                .filter(r -> r.status() == 200)
                .collect(Collectors.groupingBy(r -> Objects.toString(r.provider()), Collectors.counting())));
        String story = "killed at " + killedAt + " ms, restored at " + restoredAt + " ms; by status " + byStatus
                + ", served by "
                + byProvider + "; first answer to a page sent after the kill " + firstAfterKill
                + " ms after it; the primary served "
                + backAfter + " ms after its return";
        System.out.println("[two-providers] " + story);

        // (a) both served, by their own counts too.
        assertThat(byProvider).as(story).containsOnlyKeys(PRIMARY, SECONDARY);
        JsonNode secondLife = primary.stats();
        JsonNode secondaryStats = secondary.stats();
        assertThat(firstLife.path("answered").asLong())
                .as("the primary's first life served")
                .isPositive();
        assertThat(secondLife.path("answered").asLong())
                .as("the primary served again after coming back")
                .isPositive();
        assertThat(secondaryStats.path("answered").asLong()).isPositive();
        // (b) neither provider said 429 or 503: the gateway kept to each one's budget.
        for (JsonNode s : List.of(firstLife, secondLife, secondaryStats)) {
            assertThat(s.path("rejected429").asLong())
                    .as("provider 429s: %s", s)
                    .isZero();
            assertThat(s.path("rejected503").asLong())
                    .as("provider 503s: %s", s)
                    .isZero();
        }
        // (c) every answer a provider served says which.
        assertThat(all)
                .filteredOn(r -> r.status() == 200)
                .allSatisfy(r -> assertThat(r.provider()).isIn(PRIMARY, SECONDARY));
        // (d) answers to new pages came within a few seconds of the death, and no page failed: the calls the death cut
        // were not streams, so they went again to the secondary.
        assertThat(firstAfterKill).as(story).isLessThanOrEqualTo(MARGIN.toMillis());
        assertThat(all)
                .as(story)
                .allSatisfy(r -> assertThat(r.status()).as("%s", r.body()).isEqualTo(200));
        assertThat(all)
                .as("nothing served by a dead primary")
                .noneMatch(r -> PRIMARY.equals(r.provider()) && r.sentMs() > killedAt && r.doneMs() < restoredAt);
        // The gateway's metrics carry the provider, and count the calls the death sent on to the secondary.
        MeterRegistry meters = gateway.bean(MeterRegistry.class);
        assertThat(meters.find("sluice.upstream.responses").counters())
                .extracting(c -> c.getId().getTag("provider"))
                .contains(PRIMARY, SECONDARY);
        assertThat(meters.find("sluice.upstream.retries")
                        .tags("provider", PRIMARY, "status", "failover")
                        .counter())
                .as("failovers from the primary")
                .isNotNull()
                .satisfies(c -> assertThat(c.count()).isPositive());
    }

    /** The gateway's view of each provider (circuit, calls in flight, concurrency limit, line), for a failure's message. */
    static String gatewayState(GatewayReplica gateway) {
        MeterRegistry meters = gateway.bean(MeterRegistry.class);
        return meters.getMeters().stream()
                .filter(m -> m.getId()
                        .getName()
                        .matches("sluice\\.(provider\\.circuit|inflight|concurrency\\.limit|queue\\.depth)"))
                .map(m -> m.getId().getName() + m.getId().getTags() + "="
                        + m.measure().iterator().next().getValue())
                .sorted()
                .collect(Collectors.joining(", "));
    }

    static long served(ConcurrentLinkedQueue<Reply> replies, String provider, long doneAfterMs) {
        return replies.stream()
                .filter(r -> r.status() == 200 && provider.equals(r.provider()) && r.doneMs() > doneAfterMs)
                .count();
    }

    static long servedSentAfter(ConcurrentLinkedQueue<Reply> replies, String provider, long sentAfterMs) {
        return replies.stream()
                .filter(r -> r.status() == 200 && provider.equals(r.provider()) && r.sentMs() > sentAfterMs)
                .count();
    }
}
