package dev.sluice.gateway.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.gateway.acceptance.SeedCrowd.Client;
import dev.sluice.gateway.acceptance.SeedCrowd.Page;
import dev.sluice.gateway.acceptance.SeedCrowd.Reply;
import dev.sluice.gateway.acceptance.SeedCrowd.Rig;
import dev.sluice.gateway.dispatch.queue.Door;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.LabStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's crowd through one gateway against a provider with the seed's limits, scaled
 * (see {@link SeedCrowd}), each test on a fresh provider and gateway: the provider never
 * pushes back, accepted books arrive whole, the minute's tokens are spent to the last few
 * percent, equal tenants get equal service, a tenant with ten books does not hold up one
 * with a single book, and past the caller's max wait the door says busy at once.
 */
class SeedCrowdTest {
    static final int PAGES = 24;
    static final long MAX_WAIT_MS = 30_000;

    Rig rig;
    LabProviderServer lab;
    GatewayReplica gateway;
    Client client;
    int port;

    @BeforeEach
    void start() {
        rig = Rig.start(1, 500, 350);
        lab = rig.lab();
        gateway = rig.gateway();
        port = gateway.port();
        client = rig.client();
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    static void report(String what, Object... args) {
        System.out.printf("[seed-crowd] " + what + "%n", args);
    }

    /**
     * Four readers upload a 24-page book each and a publisher ten such books, every page at
     * once: 336 pages of ~800 tokens against a minute that holds ~145. The provider takes the
     * minute's worth in a few seconds, at 19 calls in flight, and nothing more fits until those
     * leave its rolling minute; with 30 s as the most anyone will wait, the door turns the rest
     * away at once.
     */
    @Test
    void theCrowdIsServedWholeAtTheProvidersPaceFairlyAndTheRestIsToldBusyAtOnce() throws Exception {
        Map<String, List<Page>> crowd = new LinkedHashMap<>();
        for (int r = 1; r <= 4; r++) {
            String id = "reader-" + r;
            crowd.put(id, SeedCrowd.books(id, SeedCrowd.tenant(gateway, id), 1, PAGES));
        }
        crowd.put("publisher", SeedCrowd.books("publisher", SeedCrowd.tenant(gateway, "publisher"), 10, PAGES));
        List<Page> pages = SeedCrowd.interleave(crowd.values());

        MeterRegistry meters = gateway.bean(MeterRegistry.class);
        CompletableFuture<List<Reply>> sent = client.fire(
                        pages, p -> port, System.nanoTime(), "X-Sluice-Max-Wait", Long.toString(MAX_WAIT_MS))
                .toFuture();
        // Every page has reached the dispatcher: it waits in its lane, was told busy by the door, or reached the
        // provider. From here on, every lane waits. (Counting pages past the quota instead, as this test once did,
        // started the fairness window early on a loaded machine, while some lanes were still filling.)
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> queueDepth(meters) + busy(meters) + lab.stats().received() >= pages.size());
        long takenBeforeAllArrived = lab.stats().admitted();
        List<Reply> replies = sent.get(90, TimeUnit.SECONDS);
        LabStats stats = lab.stats();
        assertThat(replies).hasSize(pages.size());
        List<Reply> served = replies.stream().filter(r -> r.status() == 200).toList();
        List<Reply> refused = replies.stream().filter(r -> r.status() != 200).toList();
        report(
                "crowd: %d pages, %d served, %d refused; provider: %s",
                pages.size(), served.size(), refused.size(), stats);
        // The whole run, what the door refused included (the fairness index below covers only the stretch where all
        // wait).
        report(
                "whole run, pages served/told busy per tenant: %s",
                replies.stream()
                        .collect(Collectors.groupingBy(
                                r -> r.page().tenant(),
                                TreeMap::new,
                                Collectors.collectingAndThen(
                                        Collectors.toList(),
                                        rs -> rs.stream()
                                                        .filter(r -> r.status() == 200)
                                                        .count() + "/"
                                                + rs.stream()
                                                        .filter(r -> r.status() != 200)
                                                        .count()))));

        // 1. The provider never pushed back; it saw only what it then served.
        assertThat(stats.rejected429()).isZero();
        assertThat(stats.rejected503()).isZero();
        assertThat(stats.received()).isEqualTo(served.size());
        assertThat(stats.completed()).isEqualTo(served.size());
        // Everything not served was told busy, with a place in line and a wait longer than the caller's, and told
        // so at once: by the door, or (a page the door took, then overtaken by a reader owed its share) as soon as
        // the minute was spent, never after waiting out its 30 s. A page the door took within its burst and then
        // gave to a reader who asked at the same moment is told the wait behind that reader: past the longest
        // promise within what was left of its own 30 s.
        assertThat(refused).allSatisfy(r -> {
            assertThat(r.busy()).as("503 gateway_busy: %s", r.body()).isTrue();
            assertThat(r.error().path("position").asInt()).isPositive();
            long estimated = r.error().path("estimated_wait_ms").asLong();
            boolean gaveWay = r.error().path("message").asString("").contains("owed an earlier turn");
            // The door promises a wait only with its margin kept, and says when the wait is one it promises.
            long promised = Door.longestPromisedMs(MAX_WAIT_MS);
            assertThat(estimated)
                    .isGreaterThan(gaveWay ? Door.longestPromisedMs(MAX_WAIT_MS - Door.BURST_MS) : promised);
            assertThat(Long.parseLong(r.retryAfter())).isEqualTo(Math.max(1, (estimated - promised + 999) / 1000));
            assertThat(r.doneMs() - r.sentMs()).as("answered at once").isLessThan(MAX_WAIT_MS / 3);
        });
        long overtaken = refused.stream()
                .filter(r -> r.error().path("message").asString("").contains("cannot be sent"))
                .count();
        report(
                "busy at the door: %d; taken, then overtaken and told busy when the minute was spent: %d; slowest answer %d ms",
                refused.size() - overtaken,
                overtaken,
                refused.stream().mapToLong(r -> r.doneMs() - r.sentMs()).max().orElse(0));
        // The minute is spent in one burst, so the next page goes when that burst leaves the provider's
        // rolling minute: the door says about a minute, not the steady-state fraction of a second.
        assertThat(refused.stream()
                        .mapToLong(r -> r.error().path("estimated_wait_ms").asLong())
                        .min()
                        .orElse(0))
                .isGreaterThan(50_000);
        // Every book accepted whole arrives whole; the readers' all were (the publisher's ten are what overflows).
        Set<String> touched = refused.stream().map(Reply::book).collect(Collectors.toSet());
        Map<String, List<Reply>> accepted = replies.stream()
                .filter(r -> !touched.contains(r.book()))
                .collect(Collectors.groupingBy(Reply::book, TreeMap::new, Collectors.toList()));
        report(
                "books accepted whole: %d %s; books with pages told busy: %d",
                accepted.size(), accepted.keySet(), touched.size());
        assertThat(accepted)
                .allSatisfy((book, its) -> assertThat(its)
                        .hasSize(PAGES)
                        .allSatisfy(r -> assertThat(r.status()).isEqualTo(200)));
        assertThat(accepted).containsKeys("reader-1#1", "reader-2#1", "reader-3#1", "reader-4#1");

        // 2. While saturated, the provider's token budget is used to 95 % or more (headroom is 3 %).
        double used = (double) stats.maxTokensInWindow() / SeedCrowd.TOKENS_PER_MINUTE;
        report(
                "provider tokens in its rolling minute at most: %d of %d (%.1f %%); in flight at most %d of %d",
                stats.maxTokensInWindow(),
                SeedCrowd.TOKENS_PER_MINUTE,
                100 * used,
                stats.maxInFlightSeen(),
                SeedCrowd.MAX_IN_FLIGHT);
        assertThat(used).isBetween(0.95, 1.0);
        assertThat(stats.maxInFlightSeen()).isLessThanOrEqualTo((int) (SeedCrowd.MAX_IN_FLIGHT * SeedCrowd.HEADROOM));

        // 3. Equal tenants, equal service: the tokens each tenant had been served (from the first provider call) by
        // the call that completed the first tenant's book. The queue's counters (FairQueue, virtual token counter)
        // count every call from the first, so a tenant whose pages happened to reach the first calls is served
        // less afterwards until the others have caught up: what is equal is the running total, not the service
        // after some later call. (This test once counted only calls after the last page had arrived; on a loaded
        // machine the first ~19 calls went unevenly and the catch-up inside that window read as unfairness,
        // Jain 0.944, while the totals were level.) Equal service is equal totals: tokens by call `to`.
        Map<String, Long> bookDoneAt = new TreeMap<>();
        for (String t : crowd.keySet()) {
            List<Reply> its = served.stream()
                    .filter(r -> r.page().tenant().equals(t))
                    .sorted(Comparator.comparingLong(Reply::providerOrder))
                    .limit(PAGES)
                    .toList();
            assertThat(its).hasSize(PAGES);
            bookDoneAt.put(t, its.get(PAGES - 1).providerOrder());
        }
        long to = bookDoneAt.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        Map<String, Long> early = new TreeMap<>();
        Map<String, Double> total = new TreeMap<>();
        for (String t : crowd.keySet()) {
            List<Reply> its =
                    served.stream().filter(r -> r.page().tenant().equals(t)).toList();
            early.put(
                    t,
                    its.stream()
                            .filter(r -> r.providerOrder() <= takenBeforeAllArrived)
                            .count());
            total.put(t, (double) its.stream()
                    .filter(r -> r.providerOrder() <= to)
                    .mapToLong(Reply::tokens)
                    .sum());
        }
        double jain = SeedCrowd.jain(total.values());
        report(
                "provider calls taken before every page had arrived: %d, pages each: %s; each tenant's %d pages served "
                        + "by call %s; tokens per tenant by call %d %s; Jain's index %.4f",
                takenBeforeAllArrived, early, PAGES, bookDoneAt, to, total, jain);
        // Every lane joined well before the first book was done, so the counters had the time to level a head start.
        assertThat(takenBeforeAllArrived)
                .as("all waiting well before the first book was done")
                .isLessThan(to / 2);
        assertThat(jain).isGreaterThanOrEqualTo(0.99);

        // 4. Past the caller's max wait, busy at once: the minute is spent, a page now would wait ~a minute.
        String key = crowd.get("reader-1").get(0).key();
        Reply late = client.fire(
                        List.of(new Page("reader-1", key, 2, 1)),
                        p -> port,
                        System.nanoTime(),
                        "X-Sluice-Max-Wait",
                        "2000")
                .block(Duration.ofSeconds(10))
                .get(0);
        report(
                "a page with X-Sluice-Max-Wait 2000 after the crowd: %d in %d ms, Retry-After %s, %s",
                late.status(), late.doneMs() - late.sentMs(), late.retryAfter(), late.body());
        assertThat(late.busy()).isTrue();
        assertThat(late.doneMs() - late.sentMs()).isLessThan(1_000);
        assertThat(late.error().path("position").asInt()).isEqualTo(1);
        assertThat(late.error().path("estimated_wait_ms").asLong()).isGreaterThan(2_000);
        assertThat(Long.parseLong(late.retryAfter())).isPositive();
        assertThat(lab.stats().received()).as("it never reached the provider").isEqualTo(stats.received());
    }

    /**
     * The publisher's ten books (120 pages) are already in line when a reader uploads one book
     * of 12: the reader's pages are served beside the publisher's, one for one, not behind them.
     * Both fit in the minute's tokens, so the calls in flight are what everyone shares here.
     */
    @Test
    void aTenantWithTenBooksDoesNotDelayATenantWithOne() {
        int pages = 12;
        List<Page> tenBooks = SeedCrowd.books("publisher", SeedCrowd.tenant(gateway, "publisher"), 10, pages);
        List<Page> oneBook = SeedCrowd.books("reader", SeedCrowd.tenant(gateway, "reader"), 1, pages);
        MeterRegistry meters = gateway.bean(MeterRegistry.class);
        long start = System.nanoTime();

        CompletableFuture<List<Reply>> publisher =
                client.fire(tenBooks, p -> port, start).toFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> queueDepth(meters) >= 80); // the ten books wait in line
        long readerStart = SeedCrowd.sinceMs(start);
        List<Reply> reader = client.fire(oneBook, p -> port, start).block(Duration.ofSeconds(30));
        List<Reply> publisherReplies = publisher.join();
        LabStats stats = lab.stats();

        assertThat(stats.rejected429()).isZero();
        assertThat(stats.rejected503()).isZero();
        assertThat(reader).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
        assertThat(publisherReplies).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));

        List<Reply> all = new ArrayList<>(reader);
        all.addAll(publisherReplies);
        List<Reply> inOrder = all.stream()
                .sorted(Comparator.comparingLong(Reply::providerOrder))
                .toList();
        int readerFirst = firstIndexOf(inOrder, "reader");
        int readerLast = lastIndexOf(inOrder, "reader");
        long publisherMeanwhile = inOrder.subList(readerFirst, readerLast + 1).stream()
                .filter(r -> r.page().tenant().equals("publisher"))
                .count();
        long readerDone = reader.stream().mapToLong(Reply::doneMs).max().orElseThrow() - readerStart;
        long publisherDone =
                publisherReplies.stream().mapToLong(Reply::doneMs).max().orElseThrow() - readerStart;
        long runMs = Math.max(readerDone + readerStart, publisherDone + readerStart);
        double pagesPerSecond = 1000.0 * stats.completed() / runMs;
        // Its share: half the provider's pace while both wait, so 2 × 12 pages' worth of it, plus one call.
        long shareMs = Math.round(1000 * 2 * pages / pagesPerSecond) + 700;
        report(
                "reader's book done %d ms after it was sent (its half share allows ~%d ms at %.1f pages/s); "
                        + "publisher's ten books done %d ms after that; publisher calls between the reader's first and last: %d",
                readerDone, shareMs, pagesPerSecond, publisherDone, publisherMeanwhile);
        assertThat(publisherMeanwhile).as("one for one while both wait").isLessThanOrEqualTo(pages + 1);
        assertThat(readerDone).isLessThanOrEqualTo(shareMs * 3 / 2);
        assertThat(publisherDone).as("far sooner than the ten books").isGreaterThan(2 * readerDone);
    }

    /** Requests the tenants' quotas let through to dispatch so far. */
    static double busy(MeterRegistry meters) {
        return meters.find("sluice.decisions").tag("stage", "busy").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    static double queueDepth(MeterRegistry meters) {
        Gauge g = meters.find("sluice.queue.depth").gauge();
        return g == null ? 0 : g.value();
    }

    static int firstIndexOf(List<Reply> inOrder, String tenant) {
        for (int i = 0; i < inOrder.size(); i++)
            if (inOrder.get(i).page().tenant().equals(tenant)) return i;
        throw new AssertionError(tenant + " was never served");
    }

    static int lastIndexOf(List<Reply> inOrder, String tenant) {
        for (int i = inOrder.size() - 1; i >= 0; i--)
            if (inOrder.get(i).page().tenant().equals(tenant)) return i;
        throw new AssertionError(tenant + " was never served");
    }
}
