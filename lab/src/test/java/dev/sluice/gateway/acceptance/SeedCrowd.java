package dev.sluice.gateway.acceptance;

import dev.sluice.gateway.tenant.ApiKeys;
import dev.sluice.gateway.tenant.Tenant;
import dev.sluice.gateway.tenant.TenantStore;
import dev.sluice.gateway.testsupport.GatewayReplica;
import dev.sluice.lab.provider.LabLimits;
import dev.sluice.lab.provider.LabProviderServer;
import dev.sluice.lab.provider.ProviderSimulator;
import dev.sluice.lab.scenario.PageText;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Seed 000's crowd, scaled to run in seconds, and what the acceptance tests need to send it:
 * a lab provider of their own, gateways pointed at it, tenants, books of pages, and a client
 * whose pool is never the bottleneck (a bounded pool is a queue of its own, in front of the gateway's).
 *
 * <p><b>The scale.</b> The seed's provider takes 300 000 tokens and 1 500 requests a minute,
 * 200 calls in flight, about 2 s a call; a page is ~800 tokens. Its shape: tokens bind over
 * the minute (375 pages, while requests would allow 1 500), and a crowd spends the minute's
 * tokens in a few seconds, bounded by the calls in flight (200 per 2 s: ~3.75 s for 375
 * pages), after which nothing more fits until the first charges leave the rolling minute.
 * Here: 120 000 tokens and 600 requests a minute (÷2.5, tokens per request still 200), 20 in
 * flight (÷10), 300–700 ms a call (÷4): a minute holds ~145 pages after the gateway's
 * headroom of 0.97, spent in ~3.8 s at 19 calls per 0.5 s. So the saturated stretch, where
 * fairness shows, lasts about as long as the seed's, and the minute's window is not scaled
 * (the gateway's budgets are real 60 s windows).
 */
final class SeedCrowd {
    static final int TOKENS_PER_MINUTE = 120_000;
    static final int REQUESTS_PER_MINUTE = 600;
    static final int MAX_IN_FLIGHT = 20;
    static final double HEADROOM = 0.97; // tiers.yaml's
    /** Who served an answer, so a route's failover can be checked: every answer a provider served carries it. */
    static final String PROVIDER_HEADER = "X-Sluice-Provider";

    private SeedCrowd() {}

    /** The seed's provider, scaled: 120 000 TPM, 600 RPM, 20 in flight, 300–700 ms a call. */
    static LabLimits labLimits() {
        return LabLimits.DEFAULTS
                .withTokensPerMinute(TOKENS_PER_MINUTE)
                .withRequestsPerMinute(REQUESTS_PER_MINUTE)
                .withMaxInFlight(MAX_IN_FLIGHT)
                .withLatency(Duration.ofMillis(500))
                .withLatencyJitter(0.4);
    }

    static LabProviderServer startLab() {
        LabProviderServer lab = new LabProviderServer(
                new ProviderSimulator(labLimits(), new SplittableRandom(42)), 0, Clock.systemUTC());
        lab.start();
        return lab;
    }

    /** tiers.yaml as shipped (tiers, ladder, headroom 0.97), with the provider's published limits scaled as the lab's. */
    static Path tiersFile() {
        try {
            String yaml = Files.readString(Path.of("../tiers.yaml"));
            String scaled = replaceOnce(
                    replaceOnce(
                            replaceOnce(
                                    yaml, "requests-per-minute: 1500", "requests-per-minute: " + REQUESTS_PER_MINUTE),
                            "tokens-per-minute: 300000",
                            "tokens-per-minute: " + TOKENS_PER_MINUTE),
                    "max-in-flight: 200",
                    "max-in-flight: " + MAX_IN_FLIGHT);
            if (!scaled.contains("headroom: " + HEADROOM))
                throw new IllegalStateException("tiers.yaml's headroom changed");
            Path file = Files.createTempFile("tiers-seed-crowd", ".yaml");
            Files.writeString(file, scaled);
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String replaceOnce(String text, String from, String to) {
        int at = text.indexOf(from);
        if (at < 0 || text.indexOf(from, at + 1) >= 0) {
            throw new IllegalStateException("tiers.yaml no longer has exactly one '" + from + "'");
        }
        return text.replace(from, to);
    }

    /** A gateway (its own Spring application) sending to {@code lab}; more {@code properties} as {@code name=value}. */
    static GatewayReplica gateway(LabProviderServer lab, Path tiers, String... properties) {
        return GatewayReplica.builder()
                .upstream(lab.baseUrl())
                .property("sluice.tiers.path", tiers)
                .properties(
                        "spring.main.banner-mode=off",
                        "server.shutdown=immediate") // nothing to drain when a test is over
                // This provider counts exactly as the estimator does, and these tests judge the first minute of a crowd
                // that arrives all at once, before any answer: the product's conservative start (1.25, for a provider
                // that counts its own way) would make the door turn away ~5 % of that minute. The judged run
                // (docs/judged-run.md) keeps the default against a provider that does count its own way.
                .properties("sluice.calibration.default-ratio=1.0")
                .properties(properties)
                .start();
    }

    /**
     * What each crowd test stands on: the scaled lab ({@link #startLab()}), {@code replicas} gateways sending to
     * it on the scaled {@link #tiersFile()}, and a {@link Client} of {@code connections} with {@code warm}
     * connections already open to each gateway. Closed in reverse: client, gateways, lab.
     */
    record Rig(LabProviderServer lab, List<GatewayReplica> gateways, Client client) implements AutoCloseable {
        static Rig start(int replicas, int connections, int warm, String... properties) {
            return start(replicas, connections, warm, null, properties);
        }

        /** @param tiersFile the gateways' tiers document; null: {@link #tiersFile()} */
        static Rig start(int replicas, int connections, int warm, Path tiersFile, String... properties) {
            LabProviderServer lab = startLab();
            List<GatewayReplica> gateways = new ArrayList<>();
            try {
                Path tiers = tiersFile == null ? tiersFile() : tiersFile;
                for (int i = 0; i < replicas; i++) gateways.add(SeedCrowd.gateway(lab, tiers, properties));
                Client client = new Client(connections);
                client.warm(
                        warm, gateways.stream().mapToInt(GatewayReplica::port).toArray());
                return new Rig(lab, gateways, client);
            } catch (RuntimeException | Error e) {
                gateways.forEach(GatewayReplica::close);
                lab.stop();
                throw e;
            }
        }

        /** The first (or only) gateway. */
        GatewayReplica gateway() {
            return gateways.get(0);
        }

        @Override
        public void close() {
            client.close();
            gateways.forEach(GatewayReplica::close);
            lab.stop();
        }
    }

    /** {@code PUT /_lab/limits} on the lab's own port, as an operator would: new limits from the next call on. */
    static String putLabLimits(LabProviderServer lab, String json) {
        try {
            HttpResponse<String> r = java.net.http.HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + lab.port() + "/_lab/limits"))
                                    .header("content-type", "application/json")
                                    .PUT(HttpRequest.BodyPublishers.ofString(json))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200)
                throw new IllegalStateException("PUT /_lab/limits: " + r.statusCode() + " " + r.body());
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A tenant on enterprise, whose own quota (1 000 000 tokens a minute, ×2 burst) never binds here; returns its key. */
    static String tenant(GatewayReplica gateway, String id) {
        return tenant(gateway, id, "enterprise");
    }

    /** The same on {@code tier}. */
    static String tenant(GatewayReplica gateway, String id, String tier) {
        String key = ApiKeys.generate();
        TenantStore store = gateway.bean(TenantStore.class);
        store.save(new Tenant(id, tier, false))
                .then(store.addKey(id, ApiKeys.sha256Hex(key)))
                .block(Duration.ofSeconds(10));
        return key;
    }

    /** One page of one book: one chat call of ~600 prompt tokens and max_tokens 200. */
    record Page(String tenant, String key, int book, int page, String model) {
        Page(String tenant, String key, int book, int page) {
            this(tenant, key, book, page, null);
        }

        String body() {
            // the lab scenarios' page, as its own model when one is given (a budget of its own in the gateway)
            return model == null ? PageText.chatBody(tenant, book, page) : PageText.chatBody(model, tenant, book, page);
        }
    }

    /** Books of {@code pages} pages each, for one tenant, in reading order. */
    static List<Page> books(String tenant, String key, int books, int pages) {
        List<Page> out = new ArrayList<>();
        for (int b = 1; b <= books; b++) for (int p = 1; p <= pages; p++) out.add(new Page(tenant, key, b, p));
        return out;
    }

    /**
     * Every tenant fires all its pages at once: the sends interleave across tenants (each user's
     * Promise.all runs concurrently), each tenant's in its own order.
     */
    static List<Page> interleave(Collection<List<Page>> perTenant) {
        List<Page> out = new ArrayList<>();
        int longest = perTenant.stream().mapToInt(List::size).max().orElse(0);
        for (int i = 0; i < longest; i++) {
            for (List<Page> pages : perTenant) if (i < pages.size()) out.add(pages.get(i));
        }
        return out;
    }

    /**
     * What the client saw for one page; times in ms since the crowd started. {@code provider} is the answer's
     * {@code X-Sluice-Provider} (who served it), null when it carried none.
     */
    record Reply(
            Page page,
            int status,
            long sentMs,
            long doneMs,
            long queueWaitMs,
            String retryAfter,
            String body,
            String provider) {
        Reply(Page page, int status, long sentMs, long doneMs, long queueWaitMs, String retryAfter, String body) {
            this(page, status, sentMs, doneMs, queueWaitMs, retryAfter, body, null);
        }

        /** When the gateway let it go to the provider: sent + the time it waited in line. */
        long dispatchedMs() {
            return sentMs + queueWaitMs;
        }

        JsonNode error() {
            return JsonMapper.shared().readTree(body).path("error");
        }

        boolean busy() {
            return status == 503 && "gateway_busy".equals(error().path("code").asString(""));
        }

        /** The lab numbers its calls as it admits them ({@code chatcmpl-lab<n>r<run>}): the order the provider took them in. */
        long providerOrder() {
            String id = JsonMapper.shared().readTree(body).path("id").asString("");
            if (!id.startsWith("chatcmpl-lab")) throw new IllegalStateException("not a lab completion: " + body);
            String rest = id.substring("chatcmpl-lab".length());
            int end = 0;
            while (end < rest.length() && Character.isDigit(rest.charAt(end))) end++;
            return Long.parseLong(rest.substring(0, end)); // then the run's own suffix
        }

        /** Tokens the provider counted for it (prompt + completion). */
        long tokens() {
            return JsonMapper.shared()
                    .readTree(body)
                    .path("usage")
                    .path("total_tokens")
                    .asLong();
        }

        /** The tenant's own book number. */
        String book() {
            return page.tenant() + "#" + page.book();
        }
    }

    /**
     * Each tenant's books as the crowd lived them, for reading a run's unfairness: per book, the
     * first page's send, the pages served and refused, the first and last dispatch of a served page
     * and the last answer, in milliseconds from the crowd's first send.
     */
    static Map<String, List<String>> bookTimeline(List<Reply> replies) {
        long start = replies.stream().mapToLong(Reply::sentMs).min().orElse(0);
        Map<String, List<Reply>> byBook = new TreeMap<>();
        for (Reply x : replies)
            byBook.computeIfAbsent(x.book(), b -> new ArrayList<>()).add(x);
        Map<String, List<String>> out = new TreeMap<>();
        byBook.forEach((book, xs) -> {
            List<Reply> served = xs.stream().filter(x -> x.status() == 200).toList();
            out.computeIfAbsent(xs.get(0).page().tenant(), t -> new ArrayList<>())
                    .add(String.format(
                            "book %s: sent %d, served %d, refused %d, dispatched %d-%d, done %d",
                            book.substring(book.indexOf('#') + 1),
                            xs.stream().mapToLong(Reply::sentMs).min().orElse(start) - start,
                            served.size(),
                            xs.size() - served.size(),
                            served.stream().mapToLong(Reply::dispatchedMs).min().orElse(start) - start,
                            served.stream().mapToLong(Reply::dispatchedMs).max().orElse(start) - start,
                            xs.stream().mapToLong(Reply::doneMs).max().orElse(start) - start));
        });
        return out;
    }

    /** A client for the gateways with one connection per page: its pool queues nothing. */
    static final class Client implements AutoCloseable {
        private final ConnectionProvider pool;
        private final HttpClient http;

        Client(int connections) {
            this(connections, Duration.ofSeconds(120));
        }

        /**
         * A pool that drops a connection idle for {@code maxIdle}: a run longer than the gateway's edge idle
         * timeout (60 s) must not reuse a connection the gateway is closing at that moment.
         */
        Client(int connections, Duration maxIdle) {
            pool = ConnectionProvider.builder("seed-crowd")
                    .maxConnections(connections)
                    .pendingAcquireMaxCount(-1)
                    .maxIdleTime(maxIdle)
                    .build();
            http = HttpClient.create(pool).responseTimeout(Duration.ofSeconds(100));
        }

        /** Opens {@code n} connections to each gateway first: a production client's pool is warm. */
        void warm(int n, int... ports) {
            Flux.range(0, n * ports.length)
                    .flatMap(
                            i -> http.get()
                                    .uri("http://127.0.0.1:" + ports[i % ports.length] + "/actuator/health")
                                    .responseSingle((r, b) ->
                                            b.then(Mono.just(r.status().code()))),
                            n * ports.length)
                    .blockLast(Duration.ofSeconds(30));
        }

        Mono<Reply> send(int port, Page page, long startNanos, String... headers) {
            HttpClient c = http.headers(h -> {
                h.set("content-type", "application/json");
                h.set("authorization", "Bearer " + page.key());
                for (int i = 0; i + 1 < headers.length; i += 2) h.set(headers[i], headers[i + 1]);
            });
            return Mono.defer(() -> {
                long sent = sinceMs(startNanos);
                return c.request(HttpMethod.POST)
                        .uri("http://127.0.0.1:" + port + "/v1/chat/completions")
                        .send(ByteBufFlux.fromString(Mono.just(page.body())))
                        .responseSingle((res, body) -> body.asString()
                                .defaultIfEmpty("")
                                .map(b -> {
                                    String wait = res.responseHeaders().get("X-Sluice-Queue-Wait-Ms");
                                    return new Reply(
                                            page,
                                            res.status().code(),
                                            sent,
                                            sinceMs(startNanos),
                                            wait == null ? 0 : Long.parseLong(wait),
                                            res.responseHeaders().get("Retry-After"),
                                            b,
                                            res.responseHeaders().get(PROVIDER_HEADER));
                                }));
            });
        }

        /**
         * Sends every page at once (concurrency = pages: nothing waits on the client's side), to
         * {@code portOf(page)}; times are measured from {@code startNanos}.
         */
        Mono<List<Reply>> fire(List<Page> pages, ToIntFunction<Page> portOf, long startNanos, String... headers) {
            return Flux.fromIterable(pages)
                    .flatMap(p -> send(portOf.applyAsInt(p), p, startNanos, headers), Math.max(1, pages.size()))
                    .collectList();
        }

        @Override
        public void close() {
            pool.disposeLater().block(Duration.ofSeconds(10));
        }
    }

    static long sinceMs(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Jain's fairness index: (Σx)² / (n · Σx²); 1 when every x is equal, 1/n when one takes all. */
    static double jain(Collection<? extends Number> xs) {
        double sum = 0;
        double squares = 0;
        for (Number x : xs) {
            sum += x.doubleValue();
            squares += x.doubleValue() * x.doubleValue();
        }
        return squares == 0 ? 1 : sum * sum / (xs.size() * squares);
    }
}
