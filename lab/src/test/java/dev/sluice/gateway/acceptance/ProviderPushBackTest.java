package dev.sluice.gateway.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.acceptance.SeedCrowd.Client;
import dev.sluice.gateway.acceptance.SeedCrowd.Page;
import dev.sluice.gateway.acceptance.SeedCrowd.Reply;
import dev.sluice.gateway.acceptance.SeedCrowd.Rig;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.LabStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The provider pushes back: its limits are lowered live ({@code PUT /_lab/limits}) below what
 * the gateway was configured to expect. Its 429s and 503s never reach a tenant: a 429 pauses
 * the budget for its retry-after and the page goes back to the head of its line; a 503 lowers
 * the adaptive concurrency limit. Each page ends served or 503 gateway_busy.
 */
class ProviderPushBackTest {
    Rig rig;
    LabProviderServer lab;
    GatewayReplica gateway;
    MeterRegistry meters;
    Client client;
    int port;

    @BeforeEach
    void start() {
        rig = Rig.start(1, 200, 60);
        lab = rig.lab();
        gateway = rig.gateway();
        meters = gateway.bean(MeterRegistry.class);
        port = gateway.port();
        client = rig.client();
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    static void assertNoRawPushBack(List<Reply> replies) {
        assertThat(replies).allSatisfy(r -> {
            assertThat(r.status())
                    .as("never a raw upstream answer: %s", r.body())
                    .isIn(200, 503);
            if (r.status() == 503) {
                assertThat(r.busy()).as("503 gateway_busy: %s", r.body()).isTrue();
                assertThat(r.retryAfter()).isNotBlank();
            }
        });
    }

    static Map<Integer, Long> byStatus(List<Reply> replies) {
        return new TreeMap<>(replies.stream().collect(Collectors.groupingBy(Reply::status, Collectors.counting())));
    }

    /**
     * The gateway believes in 116 400 tokens a minute; the provider now takes 6 400 tokens per
     * 2 s window (7 pages; its window shortened too, so the test takes seconds, not minutes).
     * Twenty pages at once: the gateway sends a burst, the provider takes what fits and says 429
     * to the rest; the budget pauses for the provider's retry-after, then tries again.
     */
    @Test
    void tooManyRequestsPausesTheBudgetAndThePagesAreTriedAgain() {
        SeedCrowd.putLabLimits(lab, "{\"tokensPerMinute\":6400,\"windowMs\":2000}");
        List<Page> pages = SeedCrowd.books("scanner", SeedCrowd.tenant(gateway, "scanner"), 1, 20);

        List<Reply> replies = client.fire(pages, p -> port, System.nanoTime()).block(Duration.ofSeconds(60));
        LabStats stats = lab.stats();
        long served = byStatus(replies).getOrDefault(200, 0L);
        long lastServed = replies.stream()
                .filter(r -> r.status() == 200)
                .mapToLong(Reply::doneMs)
                .max()
                .orElse(0);
        SeedCrowdTest.report(
                "429 push-back: tenant saw %s; provider: %d received, %d served, %d × 429; last page served at %d ms",
                byStatus(replies), stats.received(), stats.completed(), stats.rejected429(), lastServed);

        assertThat(stats.rejected429()).as("the provider did push back").isPositive();
        assertThat(upstream(429)).as("every one seen by the gateway").isEqualTo(stats.rejected429());
        assertNoRawPushBack(replies);
        // One window of the provider holds 7 pages: serving half as many again took pauses and retries.
        assertThat(served).isGreaterThanOrEqualTo(11);
        assertThat(lastServed)
                .as("served across several of the provider's windows")
                .isGreaterThan(2_000);
        // Paused, not hammered: a 429 stops every dispatch until its retry-after, so the provider refused
        // at most what was already in flight each time, and each page is tried at most three times.
        assertThat(stats.rejected429()).isLessThanOrEqualTo(2L * pages.size());
    }

    /**
     * The provider now runs 4 calls at once where the gateway expects 20 (19 with headroom): the
     * rest get 503 overloaded. The gateway's adaptive concurrency limit comes down, interval by
     * interval, and tenants see only 200 or gateway_busy.
     */
    @Test
    void overloadBringsTheConcurrencyLimitDown() {
        assertThat(concurrencyLimit()).isEqualTo(19.0);
        SeedCrowd.putLabLimits(lab, "{\"maxInFlight\":4}");
        String key = SeedCrowd.tenant(gateway, "scanner");
        List<Reply> replies = new ArrayList<>();
        long start = System.nanoTime();
        int[] book = {0};
        // Waves of a 20-page book until the limit has come down to what the provider takes (bounded by Awaitility).
        await().atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    List<Page> wave = SeedCrowd.books("scanner", key, ++book[0], 20).stream()
                            .filter(p -> p.book() == book[0])
                            .toList();
                    replies.addAll(client.fire(wave, p -> port, start).block(Duration.ofSeconds(30)));
                    return concurrencyLimit() <= 6;
                });
        LabStats stats = lab.stats();
        SeedCrowdTest.report(
                "503 push-back: %d waves, tenant saw %s; provider: %d × 503, %d served, %d in flight at most; "
                        + "concurrency limit now %.0f",
                book[0],
                byStatus(replies),
                stats.rejected503(),
                stats.completed(),
                stats.maxInFlightSeen(),
                concurrencyLimit());

        assertThat(stats.rejected503()).as("the provider did push back").isPositive();
        assertThat(upstream(503)).as("every one seen by the gateway").isEqualTo(stats.rejected503());
        assertNoRawPushBack(replies);
        assertThat(concurrencyLimit()).isLessThanOrEqualTo(6);
        assertThat(stats.completed()).isPositive();
        // The provider never ran the calls it refused: the budget holds the calls that ran (give or take one
        // burst in flight when the gauge last looked), not 240 refused attempts, which would fill its minute.
        double tokensHeld = tokenUtilisation() * SeedCrowd.TOKENS_PER_MINUTE * SeedCrowd.HEADROOM;
        assertThat(tokensHeld).isLessThanOrEqualTo((stats.admitted() + 19) * 1_000.0);
    }

    double upstream(int status) {
        var c = meters.find("sluice.upstream.responses")
                .tag("status", Integer.toString(status))
                .counter();
        return c == null ? 0 : c.count();
    }

    double tokenUtilisation() {
        return meters.find("sluice.budget.utilisation")
                .tag("budget", "default:*")
                .tag("unit", "tokens")
                .gauge()
                .value();
    }

    double concurrencyLimit() {
        Gauge g = meters.find("sluice.concurrency.limit")
                .tag("budget", "default:*")
                .gauge();
        return g == null ? 19.0 : g.value(); // registered with the budget's dispatcher, on its first call
    }
}
