package dev.sluice.lab.provider;

import dev.sluice.lab.provider.Admission.Admitted;
import dev.sluice.lab.provider.Admission.Rejected;
import dev.sluice.lab.provider.LabRequest.BadRequestException;
import dev.sluice.lab.provider.LabRequest.Endpoint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;

/**
 * The lab provider on its own port: an OpenAI-compatible HTTP API in front of {@link ProviderSimulator}.
 * Non-blocking throughout: a call's latency is a timer ({@code Mono.delay}), never a parked thread,
 * so thousands of concurrent calls cost timers, not threads.
 *
 * <p>Bound to 127.0.0.1: it is a stand-in for a remote provider, not something to expose.
 */
public final class LabProviderServer {

    private static final Logger log = LoggerFactory.getLogger(LabProviderServer.class);

    /** A long answer streams in at most this many chunks, so one call is tens of timers, not hundreds. */
    static final int MAX_STREAM_CHUNKS = 50;
    /** The first chunk arrives after this share of the latency (time to first token). */
    static final double FIRST_CHUNK_SHARE = 0.1;

    private final ProviderSimulator simulator;
    private final int requestedPort;
    private final Clock clock;
    /** How much faster {@link #clock} runs than the wall: timers wait {@code 1/timeFactor} of a call's latency. */
    private final double timeFactor;

    private final ProviderWays ways;
    /** The wall-clock time an answer spends on the network after the provider counted the call: fixed per server. */
    private final Duration travel;
    /** The longest a request travels before the provider counts it (each takes a random share of it), as a wall-clock timer. */
    private final Duration arrival;

    private final PromptTokenCounter tokens = PromptTokenCounter.shared();
    private volatile DisposableServer server;

    public LabProviderServer(LabLimits limits, int port) {
        this(limits, ProviderWays.DEFAULT, port);
    }

    public LabProviderServer(LabLimits limits, ProviderWays ways, int port) {
        this(new ProviderSimulator(limits), port, Clock.systemUTC(), 1, ways);
    }

    /** @param port 0 binds an ephemeral port; read it back with {@link #port()} */
    public LabProviderServer(ProviderSimulator simulator, int port, Clock clock) {
        this(simulator, port, clock, 1);
    }

    /**
     * A provider whose time is compressed (the lab scenarios): the simulator and {@code clock} count
     * in the seed's units (a 60 s minute, 2 s calls), {@code clock} runs {@code timeFactor} times
     * faster than the wall, and a call's real timer is its latency divided by the factor.
     */
    public LabProviderServer(ProviderSimulator simulator, int port, Clock clock, double timeFactor) {
        this(simulator, port, clock, timeFactor, ProviderWays.DEFAULT);
    }

    /** @param ways how this provider counts, how far its clock is off and how long its answers travel */
    public LabProviderServer(ProviderSimulator simulator, int port, Clock clock, double timeFactor, ProviderWays ways) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
        }
        if (!(timeFactor >= 1) || Double.isInfinite(timeFactor)) {
            throw new IllegalArgumentException("timeFactor must be a finite number >= 1, was " + timeFactor);
        }
        this.simulator = Objects.requireNonNull(simulator, "simulator");
        this.requestedPort = port;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.timeFactor = timeFactor;
        this.ways = Objects.requireNonNull(ways, "ways");
        this.travel = real(ways.extraLatency());
        this.arrival = real(ways.requestLatency());
    }

    /** Binds and returns the port. Idempotent. */
    public synchronized int start() {
        if (server == null) {
            // Load both vocabularies now rather than on an event loop during the first call.
            tokens.count("gpt-4o", "warm up");
            tokens.count("gpt-3.5-turbo", "warm up");
            server = HttpServer.create()
                    .host("127.0.0.1")
                    .port(requestedPort)
                    .route(this::routes)
                    .bindNow();
            LabLimits l = simulator.limits();
            log.info(
                    "Lab provider (simulator) listening on {} — {} RPM, {} TPM, {} in flight, ~{} ms per call,"
                            + " ${} per million tokens",
                    baseUrl(),
                    l.requestsPerMinute(),
                    l.tokensPerMinute(),
                    l.maxInFlight(),
                    l.latency().toMillis(),
                    l.pricePerMillionTokens());
            if (!ways.equals(ProviderWays.DEFAULT) || l.inputTokensPerMinute() > 0 || l.outputTokensPerMinute() > 0) {
                log.info(
                        "Lab provider ways: {} ITPM, {} OTPM (0 = none), {}",
                        l.inputTokensPerMinute(),
                        l.outputTokensPerMinute(),
                        ways);
            }
        }
        return server.port();
    }

    public synchronized void stop() {
        if (server != null) {
            try {
                server.disposeNow(Duration.ofSeconds(5));
            } catch (IllegalStateException e) {
                // A client that keeps a connection open (a gateway's pool, closed after its context)
                // must not fail the stop: the listening socket is released; the connections close with their peers.
                log.warn(
                        "Lab provider on port {} stopped with connections still open: {}",
                        server.port(),
                        e.getMessage());
            }
            server = null;
        }
    }

    public boolean isRunning() {
        return server != null;
    }

    public int port() {
        DisposableServer s = server;
        if (s == null) {
            throw new IllegalStateException("lab provider is not started");
        }
        return s.port();
    }

    /** The OpenAI base URL clients are configured with, e.g. {@code http://127.0.0.1:8081/v1}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    public ProviderSimulator simulator() {
        return simulator;
    }

    public LabStats stats() {
        return simulator.stats(now());
    }

    public String statsJson() {
        return LabJson.stats(stats());
    }

    public void reset() {
        simulator.reset();
    }

    public ProviderWays ways() {
        return ways;
    }

    /** The provider's window clock: the shared clock, {@code clock-offset} off. */
    private long now() {
        return clock.millis() + ways.clockOffset().toMillis();
    }

    /** A duration on the simulator's clock as a wall-clock timer. */
    private Duration real(Duration onClock) {
        return timeFactor == 1 ? onClock : Duration.ofNanos((long) (onClock.toNanos() / timeFactor));
    }

    private void routes(HttpServerRoutes r) {
        r.post("/v1/chat/completions", (req, res) -> generate(Endpoint.CHAT, req, res))
                .post("/v1/completions", (req, res) -> generate(Endpoint.COMPLETIONS, req, res))
                .post("/v1/embeddings", (req, res) -> generate(Endpoint.EMBEDDINGS, req, res))
                .post("/v1/responses", (req, res) -> generate(Endpoint.RESPONSES, req, res))
                .get(
                        "/v1/models",
                        (req, res) -> sendJson(
                                res,
                                200,
                                OpenAiShapes.models(clock.instant().getEpochSecond()),
                                simulator.rateLimits(now())))
                .get("/_lab/stats", (req, res) -> sendJson(res, 200, statsJson(), simulator.rateLimits(now())))
                .post("/_lab/reset", (req, res) -> {
                    reset();
                    return sendJson(res, 200, statsJson(), simulator.rateLimits(now()));
                })
                .get(
                        "/_lab/limits",
                        (req, res) ->
                                sendJson(res, 200, LabJson.limits(simulator.limits()), simulator.rateLimits(now())))
                .put("/_lab/limits", this::updateLimits)
                .route(
                        req -> true,
                        (req, res) -> sendJson(
                                res,
                                404,
                                OpenAiShapes.error(
                                        "Invalid URL (" + req.method() + " " + req.fullPath() + ")",
                                        "invalid_request_error",
                                        null,
                                        null),
                                simulator.rateLimits(now())));
    }

    private Publisher<Void> generate(Endpoint endpoint, HttpServerRequest req, HttpServerResponse res) {
        // Any key is accepted; only whether one came is remembered (never the key itself).
        if (!req.requestHeaders().contains(HttpHeaderNames.AUTHORIZATION)) {
            simulator.noteMissingKey();
        }
        Mono<String> body =
                req.receive().aggregate().asString(StandardCharsets.UTF_8).defaultIfEmpty("");
        // The request's way here, which varies from one request to the next: counted only once it has arrived.
        if (!arrival.isZero()) {
            body = body.delayElement(
                    Duration.ofNanos(ThreadLocalRandom.current().nextLong(arrival.toNanos() + 1)));
        }
        return body.flatMap(text -> answer(endpoint, text, res));
    }

    private Mono<Void> answer(Endpoint endpoint, String body, HttpServerResponse res) {
        LabRequest request;
        try {
            request = LabRequest.parse(endpoint, body, tokens, ways.promptCount());
        } catch (BadRequestException e) {
            simulator.noteBadRequest();
            return sendJson(
                    res,
                    400,
                    OpenAiShapes.error(e.getMessage(), "invalid_request_error", e.code, e.param),
                    simulator.rateLimits(now()),
                    travel);
        }
        Admission admission = simulator.admit(request.promptTokens(), request.maxTokens(), now());
        if (admission instanceof Rejected rejected) {
            if (rejected.retryAfterMillis() >= 0) {
                res.header("retry-after", Long.toString((rejected.retryAfterMillis() + 999) / 1000));
                res.header("retry-after-ms", Long.toString(rejected.retryAfterMillis()));
            }
            return sendJson(
                    res,
                    rejected.status(),
                    OpenAiShapes.rejection(rejected, request.model()),
                    rejected.rateLimits(),
                    travel);
        }
        LabCall call = ((Admitted) admission).call();
        try {
            admission.rateLimits().headers().forEach(res::header);
            res.header("x-request-id", "req_lab" + call.id());
            // As OpenAI does: the time from counting the call to its answer (a stream's headers go at once).
            if (ways.statesProcessingTime()) {
                res.header("openai-processing-ms", request.stream() ? "0" : Long.toString(call.latencyMillis()));
            }
            long created = Math.floorDiv(now(), 1000); // the provider stamps its answers with its own clock
            return request.stream() ? stream(res, request, call, created) : respondLater(res, request, call, created);
        } catch (RuntimeException e) {
            // Admitted but never answered: the slot must not leak.
            abandoned(call, 0);
            throw e;
        }
    }

    private Mono<Void> respondLater(HttpServerResponse res, LabRequest request, LabCall call, long created) {
        Mono<String> body = Mono.delay(real(Duration.ofMillis(call.latencyMillis())))
                .map(tick -> {
                    String answer = OpenAiShapes.body(request, call, created);
                    finished(call);
                    return answer;
                });
        if (!travel.isZero()) {
            body = body.delayElement(travel);
        }
        res.status(HttpResponseStatus.OK).header(HttpHeaderNames.CONTENT_TYPE, "application/json");
        return res.sendString(body).then().doFinally(signal -> abandoned(call, 0));
    }

    /**
     * Spreads the completion over the call's latency: the first piece after {@link #FIRST_CHUNK_SHARE}
     * of it, the rest evenly, the closing events at the end.
     */
    private Mono<Void> stream(HttpServerResponse res, LabRequest request, LabCall call, long created) {
        OpenAiShapes.StreamRenderer renderer = OpenAiShapes.streamRenderer(request, call, created);
        long completion = call.completionTokens();
        int pieces = (int) Math.max(1, Math.min(completion, MAX_STREAM_CHUNKS));
        long latencyNanos = call.latencyMillis() * 1_000_000;
        Duration first = real(Duration.ofNanos((long) (latencyNanos * FIRST_CHUNK_SHARE)));
        Duration gap = real(Duration.ofNanos((long) (latencyNanos * (1 - FIRST_CHUNK_SHARE) / pieces)));
        AtomicLong sent = new AtomicLong();

        Flux<String> events = Flux.range(0, pieces)
                .concatMap(i -> Mono.delay(i == 0 ? first : gap).map(tick -> {
                    long from = completion * i / pieces;
                    long to = completion * (i + 1) / pieces;
                    String text = (i == 0 ? renderer.start() : "") + renderer.content(from, to);
                    sent.set(to); // handed to the socket: what a cancelled call is billed for
                    return text;
                }))
                .concatWith(Mono.delay(gap).map(tick -> {
                    String end = renderer.end();
                    finished(call);
                    return end;
                }));

        res.status(HttpResponseStatus.OK)
                .header(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .header(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        if (!travel.isZero()) {
            events = events.delaySequence(travel);
        }
        // Flush every event: a stream that sits in a buffer is not a stream.
        return res.send(events.map(LabProviderServer::utf8), buf -> true)
                .then()
                .doFinally(signal -> abandoned(call, sent.get()));
    }

    /**
     * Generation is over: release and bill in full now, before the last bytes leave, as a real
     * provider bills what it generated. A client that has read the answer therefore always finds it
     * counted in the stats.
     */
    private void finished(LabCall call) {
        simulator.complete(call, now());
    }

    /**
     * Runs whenever the exchange ends. After {@link #finished} it is a no-op (a call is released once);
     * otherwise the client went away: prompt + tokens sent. The terminal signal cannot tell the two
     * apart: when the connection closes, reactor-netty cancels our publisher but completes the send.
     */
    private void abandoned(LabCall call, long tokensSent) {
        simulator.cancel(call, tokensSent, now());
    }

    private Publisher<Void> updateLimits(HttpServerRequest req, HttpServerResponse res) {
        return req.receive()
                .aggregate()
                .asString(StandardCharsets.UTF_8)
                .defaultIfEmpty("")
                .flatMap(body -> {
                    LabLimits updated;
                    try {
                        updated = simulator.updateLimits(current -> LabJson.patchLimits(current, body));
                    } catch (IllegalArgumentException e) {
                        return sendJson(
                                res,
                                400,
                                OpenAiShapes.error(e.getMessage(), "invalid_request_error", "invalid_limits", null),
                                simulator.rateLimits(now()));
                    }
                    log.info("Lab provider limits changed: {}", LabJson.limits(updated));
                    return sendJson(res, 200, LabJson.limits(updated), simulator.rateLimits(now()));
                });
    }

    private static Mono<Void> sendJson(HttpServerResponse res, int status, String json, RateLimitSnapshot limits) {
        return sendJson(res, status, json, limits, Duration.ZERO);
    }

    /** @param travel how long the answer takes to reach the client (headers go with the body) */
    private static Mono<Void> sendJson(
            HttpServerResponse res, int status, String json, RateLimitSnapshot limits, Duration travel) {
        res.status(status).header(HttpHeaderNames.CONTENT_TYPE, "application/json");
        limits.headers().forEach(res::header);
        Mono<String> body = Mono.just(json);
        return res.sendString(travel.isZero() ? body : body.delayElement(travel))
                .then();
    }

    private static ByteBuf utf8(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }
}
