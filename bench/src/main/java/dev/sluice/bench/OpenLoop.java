package dev.sluice.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Open-loop load at a fixed rate against one URL: request {@code i} is due at {@code start + i / rate},
 * whatever happened to the requests before it, and its latency is measured from that due time, not
 * from when it was actually sent. A stalled server or a stalled sender therefore shows in the
 * percentiles for every request it delayed (no coordinated omission), as in wrk2.
 *
 * <p>One instance per target, with its own connection pool (HTTP/1.1 keep-alive, as many connections
 * as the calls in flight need, up to {@link #MAX_CONNECTIONS}; past that, requests wait for one and
 * that wait counts in their latency). A request that gets no full answer within {@link #TIMEOUT}
 * counts as an error.
 */
final class OpenLoop implements AutoCloseable {
    static final int MAX_CONNECTIONS = 2_000;
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Latencies recorded up to a minute, 3 significant digits, in microseconds. */
    static final long HIGHEST_US = TimeUnit.MINUTES.toMicros(1);

    private final String name;
    private final ConnectionProvider pool;
    private final HttpClient client;
    private final String path;
    private final byte[] body;

    /** What one step measured. */
    record Step(
            double rate,
            double seconds,
            long sent,
            long ok,
            long errors,
            Map<String, Long> failures,
            Histogram latencyUs,
            Histogram sendLagUs) {}

    OpenLoop(String name, URI url, String apiKey, String body) {
        this(name, url, apiKey, body, MAX_CONNECTIONS);
    }

    OpenLoop(String name, URI url, String apiKey, String body, int maxConnections) {
        this.name = name;
        this.pool = ConnectionProvider.builder("bench-" + name)
                .maxConnections(maxConnections)
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(TIMEOUT)
                .build();
        this.client = HttpClient.create(pool)
                .baseUrl(url.getScheme() + "://" + url.getAuthority())
                .responseTimeout(TIMEOUT)
                .headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                        .set(HttpHeaderNames.AUTHORIZATION, "Bearer " + apiKey));
        this.path = url.getRawPath();
        this.body = body.getBytes(StandardCharsets.UTF_8);
    }

    String name() {
        return name;
    }

    /** One request, waited for: its status and body, for checking an arm before loading it. */
    Answer once() {
        return client.post()
                .uri(path)
                .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)))
                .responseSingle((res, content) -> content.asString(StandardCharsets.UTF_8)
                        .defaultIfEmpty("")
                        .map(text -> new Answer(
                                res.status().code(),
                                res.responseHeaders().entries().stream()
                                        .collect(Collectors.toMap(
                                                e -> e.getKey().toLowerCase(Locale.ROOT),
                                                Map.Entry::getValue,
                                                (a, b) -> a,
                                                TreeMap::new)),
                                text)))
                .block(TIMEOUT.plusSeconds(5));
    }

    record Answer(int status, Map<String, String> headers, String body) {}

    /**
     * Sends at {@code rate} per second for {@code duration}, then waits for every answer (at most
     * {@link #TIMEOUT} and a margin; what is still missing then counts as a timeout).
     */
    Step run(double rate, Duration duration) {
        long periodNs = Math.round(1e9 / rate);
        long count = Math.max(1, duration.toNanos() / periodNs);
        ConcurrentHistogram latency = new ConcurrentHistogram(HIGHEST_US, 3);
        Histogram sendLag = new Histogram(HIGHEST_US, 3);
        LongAdder ok = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicLong done = new AtomicLong();
        Map<String, Long> failures = new ConcurrentHashMap<>();

        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
        for (long i = 0; i < count; i++) {
            long due = start + i * periodNs;
            long now = System.nanoTime();
            while (now < due) { // parks overshoot by tens of µs; the latency still counts from `due`
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            sendLag.recordValue(Math.min(HIGHEST_US, (now - due) / 1_000));
            client.post()
                    .uri(path)
                    .send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)))
                    .responseSingle((res, content) -> content.asByteArray()
                            .map(b -> res.status().code())
                            .defaultIfEmpty(res.status().code()))
                    .subscribe(
                            status -> {
                                latency.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - due) / 1_000));
                                if (status == 200) ok.increment();
                                else fail(errors, failures, "status " + status);
                                done.incrementAndGet();
                            },
                            error -> {
                                latency.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - due) / 1_000));
                                fail(errors, failures, error.getClass().getSimpleName());
                                done.incrementAndGet();
                            });
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + TIMEOUT.toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
        while (done.get() < count && System.nanoTime() < deadline) {
            LockSupport.parkNanos(
                    TimeUnit.MILLISECONDS.toNanos(5)); // answers arrive on Netty's threads: poll their count
        }
        long missing = count - done.get();
        if (missing > 0) {
            errors.add(missing);
            failures.merge("no answer", missing, Long::sum);
        }
        return new Step(rate, seconds, count, ok.sum(), errors.sum(), new TreeMap<>(failures), latency, sendLag);
    }

    private static void fail(LongAdder errors, Map<String, Long> failures, String why) {
        errors.increment();
        failures.merge(why, 1L, Long::sum);
    }

    /**
     * {@code OpenLoop <url> <api key> <rate>[,<rate>…] <seconds>}: the benchmark's request at one URL, one step
     * per rate, a line each. For looking at one arm by hand (e.g. while profiling it).
     */
    public static void main(String[] args) {
        quietLogging();
        try (OpenLoop load = new OpenLoop("cli", URI.create(args[0]), args[1], FakeProvider.REQUEST)) {
            for (String rate : args[2].split(",")) {
                Step s = load.run(Double.parseDouble(rate), Duration.ofSeconds(Long.parseLong(args[3])));
                System.out.printf(
                        Locale.ROOT,
                        "%s req/s: sent %d, errors %d %s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.1f ms%n",
                        rate,
                        s.sent(),
                        s.errors(),
                        s.failures(),
                        s.latencyUs().getValueAtPercentile(50) / 1000.0,
                        s.latencyUs().getValueAtPercentile(99) / 1000.0,
                        s.latencyUs().getValueAtPercentile(99.9) / 1000.0,
                        s.latencyUs().getMaxValue() / 1000.0);
            }
        }
        System.exit(0);
    }

    /** The client logs a line per timeout when an arm is overloaded: the counts say it. */
    static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
            context.getLogger("reactor.netty").setLevel(Level.OFF);
        }
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(5));
    }
}
