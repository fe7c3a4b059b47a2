package dev.sluice.gateway.dispatch.upstream;

import dev.sluice.gateway.api.OpenAiDuration;
import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.estimate.Endpoint;
import dev.sluice.gateway.estimate.RequestEstimate;
import dev.sluice.gateway.support.Deadline;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Sees the provider's answer before the client does, and decides what the client gets:
 * <ul>
 * <li>a 429 or 503 is the provider pushing back: its body is drained and dropped, nothing is
 * committed, so the request can go back in line and try again;</li>
 * <li>where another provider can serve the call, any other 5xx is held back the same way, to
 * be tried there;</li>
 * <li>a 5xx, the provider refusing the gateway's own key (401/403), or a 200 that is not JSON
 * where JSON was asked for, becomes a gateway error in OpenAI's shape: the provider's body
 * never reaches the tenant (it may name the gateway's account), and a tenant cannot fix the
 * gateway's key;</li>
 * <li>anything else passes, bounded in time: a stream that goes silent longer than the idle
 * timeout ends with an error event, a non-stream body that takes longer than its timeout is cut
 * (504 when nothing was sent yet).</li>
 * </ul>
 * It reads the provider's rate-limit headers and retry-after from the HTTP client's own response,
 * as the provider sent them: the exchange's response may already carry the tenant's headers of
 * the same names (a delayed request's refusal wrote them), which are not the provider's count.
 */
public final class UpstreamAnswer extends ServerHttpResponseDecorator {
    private static final Logger log = LoggerFactory.getLogger(UpstreamAnswer.class);

    private final ServerWebExchange exchange;
    private final UpstreamTimeouts timeouts;
    private final boolean mayRetry;
    private final boolean mayFailOver;
    private final IntConsumer statusSeen;
    private volatile boolean failedOver;
    private volatile boolean pushedBack;
    private volatile long retryAfterMs = -1;
    private volatile int status;
    private volatile long remainingRequests = -1;
    private volatile long remainingTokens = -1;
    private volatile long resetMs = -1;
    private volatile boolean timedOut;
    private volatile long countedByMs = Long.MIN_VALUE;
    private volatile long headersAtMs = Long.MIN_VALUE;
    private final Clock clock;

    /**
     * @param mayRetry    a push-back (429/503) is held back to be tried again; when false (no budget
     *                    to retry under), a 429 passes as sent and a 503 is an upstream error
     * @param mayFailOver a 5xx other than 503 is held back too ({@link #failedOver()}): another
     *                    provider on the route can serve the call
     * @param statusSeen  told the provider's status as soon as its headers arrive (the provider's health)
     * @param clock       the provider budget's clock, to stamp when the answer's headers arrived
     */
    public UpstreamAnswer(
            ServerWebExchange exchange,
            UpstreamTimeouts timeouts,
            boolean mayRetry,
            boolean mayFailOver,
            IntConsumer statusSeen,
            Clock clock) {
        super(exchange.getResponse());
        this.exchange = exchange;
        this.timeouts = timeouts;
        this.mayRetry = mayRetry;
        this.mayFailOver = mayFailOver;
        this.statusSeen = statusSeen;
        this.clock = clock;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return answer(Flux.from(body), false);
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return answer(Flux.from(body).concatMap(Flux::from), true);
    }

    private Mono<Void> answer(Flux<DataBuffer> body, boolean flushEach) {
        inspect();
        statusSeen.accept(status);
        if (pushedBack) return ProviderBodies.drain(body).then();
        if (mayFailOver && status >= 500 && status != 503) {
            failedOver = true;
            return ProviderBodies.drain(body)
                    .doOnNext(text ->
                            log.warn("The provider answered {}; trying the next on the route: {}", status, text))
                    .then();
        }
        if (status == 401 || status == 403) {
            return ProviderBodies.drain(body).flatMap(text -> {
                log.error(
                        "The provider refused the gateway's API key ({}): check the provider's api-key-env. It said: {}",
                        status,
                        text);
                return replace(
                        HttpStatus.BAD_GATEWAY,
                        "upstream_auth_failed",
                        "The gateway could not authenticate with the provider. This is not a problem with your request.");
            });
        }
        if (status >= 500) {
            return ProviderBodies.drain(body).flatMap(text -> {
                log.warn("The provider answered {}: {}", status, text);
                return status == 504
                        ? replace(
                                HttpStatus.GATEWAY_TIMEOUT, "upstream_timeout", "The provider did not answer in time.")
                        : replace(
                                HttpStatus.BAD_GATEWAY,
                                "upstream_error",
                                "The provider failed to answer (" + status + ").");
            });
        }
        boolean stream = isEventStream();
        Flux<DataBuffer> bounded = bounded(body, stream);
        if (status / 100 == 2 && !stream && expectsJson()) return readableOrReplaced(bounded);
        return flushEach ? super.writeAndFlushWith(bounded.map(Flux::just)) : super.writeWith(bounded);
    }

    /** Status, the provider's own rate-limit headers and retry-after, as the provider sent them. */
    private void inspect() {
        HttpStatusCode code = getStatusCode();
        status = code == null ? 200 : code.value();
        HttpClientResponse raw = exchange.getAttribute(ServerWebExchangeUtils.CLIENT_RESPONSE_ATTR);
        if (raw == null) return; // not from the HTTP client: no provider headers to believe
        io.netty.handler.codec.http.HttpHeaders h = raw.responseHeaders();
        remainingRequests = number(h.get("x-ratelimit-remaining-requests"));
        remainingTokens = number(h.get("x-ratelimit-remaining-tokens"));
        resetMs = Math.max(
                OpenAiDuration.parseMillis(h.get("x-ratelimit-reset-requests")),
                OpenAiDuration.parseMillis(h.get("x-ratelimit-reset-tokens")));
        headersAtMs = clock.millis();
        countedByMs = countedBy(headersAtMs, number(h.get("openai-processing-ms")), isEventStream());
        if (mayRetry && (status == 429 || status == 503)) {
            pushedBack = true;
            long ms = number(h.get("retry-after-ms"));
            retryAfterMs = ms >= 0 ? ms : OpenAiDuration.parseMillis(h.get(HttpHeaders.RETRY_AFTER));
        }
    }

    /**
     * The latest time the provider can have counted the call, proved by its answer: the headers
     * came back after it counted, and a provider that states its processing time
     * ({@code openai-processing-ms}) counted at least that much earlier still. A JSON answer
     * without that header proves only "before the whole call ended", too late to be worth
     * holding the charge for: {@link Long#MIN_VALUE}, nothing proved.
     */
    public static long countedBy(long headersAtMs, long processingMs, boolean stream) {
        if (processingMs >= 0) return headersAtMs - Math.min(processingMs, headersAtMs);
        return stream ? headersAtMs : Long.MIN_VALUE;
    }

    /** See {@link #countedBy}; {@link Long#MIN_VALUE} until the answer's headers came. */
    public long countedByMs() {
        return countedByMs;
    }

    /** When the provider's status and headers arrived; {@link Long#MIN_VALUE} until they came. */
    public long headersAtMs() {
        return headersAtMs;
    }

    private boolean isEventStream() {
        MediaType type = getHeaders().getContentType();
        return type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type);
    }

    /** The tenant asked one of the counted endpoints for a whole answer: it must be JSON. */
    private boolean expectsJson() {
        RequestEstimate estimate = RequestEstimate.ATTRIBUTE.get(exchange);
        return estimate != null
                && estimate.endpoint() != Endpoint.OTHER
                && estimate.endpoint() != Endpoint.SPEECH
                && !estimate.stream();
    }

    /** A JSON answer passes; anything else (HTML, text, an empty body) becomes 502, judged on its first bytes. */
    private Mono<Void> readableOrReplaced(Flux<DataBuffer> body) {
        MediaType type = getHeaders().getContentType();
        if (type != null
                && !MediaType.APPLICATION_JSON.isCompatibleWith(type)
                && !type.getSubtype().endsWith("+json")) {
            return unreadable(body, "content-type " + type);
        }
        return body.switchOnFirst((first, all) -> {
                    if (first.isOnError()) return all.then();
                    if (first.hasValue() && ProviderBodies.startsLikeJson(first.get())) {
                        if (!ProviderBodies.isErrorObject(first.get())) return super.writeWith(all);
                        return ProviderBodies.drain(all).flatMap(text -> {
                            // A 2xx that says it failed is a failure: the tenant gets the gateway's word, not the
                            // provider's text.
                            log.warn("The provider answered {} with an error object: {}", status, text);
                            return replace(
                                    HttpStatus.BAD_GATEWAY,
                                    "upstream_error",
                                    "The provider reported an error for this request.");
                        });
                    }
                    return unreadable(all, first.hasValue() ? "a body that is not JSON" : "an empty body");
                })
                .then();
    }

    private Mono<Void> unreadable(Flux<DataBuffer> body, String what) {
        return ProviderBodies.drain(body).flatMap(text -> {
            log.warn("The provider answered {} with {}: {}", status, what, text);
            return replace(HttpStatus.BAD_GATEWAY, "upstream_error", "The provider's answer could not be read.");
        });
    }

    /**
     * The upstream body with its time bounds. A stream cut after something was sent ends with an
     * OpenAI-shaped error event and completes (the client learns why; the charge is what was
     * seen); anything cut before its first byte fails with a timeout, which becomes a 504.
     */
    private Flux<DataBuffer> bounded(Flux<DataBuffer> body, boolean stream) {
        boolean[] sent = {false};
        byte[] tail = {'\n', '\n'}; // the last two bytes sent: is the stream at an event boundary?
        Flux<DataBuffer> timed;
        Duration limit;
        if (stream) {
            limit = timeouts.streamIdle();
            timed = Deadline.idle(body, limit);
        } else {
            limit = timeouts.body();
            // The deadline on the timers' own clock (a virtual one in a test that replaces Reactor's schedulers).
            Scheduler timers = Schedulers.parallel();
            long end = timers.now(TimeUnit.MILLISECONDS) + limit.toMillis();
            timed = body.timeout(
                    Mono.delay(limit, timers),
                    each -> Mono.delay(
                            Duration.ofMillis(Math.max(0, end - timers.now(TimeUnit.MILLISECONDS))), timers));
        }
        return timed.doOnNext(b -> {
                    int n = b.readableByteCount();
                    if (n > 0) {
                        sent[0] = true;
                        tail[0] = n > 1 ? b.getByte(b.writePosition() - 2) : tail[1];
                        tail[1] = b.getByte(b.writePosition() - 1);
                    }
                })
                .onErrorResume(e -> {
                    boolean timeout = e instanceof TimeoutException;
                    String what = !timeout
                            ? "The provider's answer broke off."
                            : stream
                                    ? "The provider sent nothing for " + limit.toMillis() + " ms; the stream was cut."
                                    : "The provider did not finish its answer within " + limit.toMillis() + " ms.";
                    if (timeout) {
                        timedOut = true;
                        log.warn("Upstream stalled: {}", what);
                    }
                    if (!stream || !sent[0]) return Flux.error(timeout ? new TimeoutException(what) : e);
                    // Committed already: the client learns why in the stream itself (the settle stage charges
                    // the reservation, or what passed if more: the provider may still be writing).
                    if (!timeout) log.warn("Upstream stream broke off: {}", e.toString());
                    String boundary = tail[1] != '\n' ? "\n\n" : tail[0] != '\n' ? "\n" : "";
                    String event = boundary + "data: "
                            + OpenAiErrors.body("server_error", timeout ? "upstream_timeout" : "upstream_error", what)
                            + "\n\n";
                    return Flux.just(bufferFactory().wrap(event.getBytes(StandardCharsets.UTF_8)));
                });
    }

    /** The provider's answer is dropped: its headers go, a gateway error takes its place. */
    private Mono<Void> replace(HttpStatus to, String code, String message) {
        Set<String> names =
                exchange.getAttributeOrDefault(ServerWebExchangeUtils.CLIENT_RESPONSE_HEADER_NAMES, Set.of());
        names.forEach(getHeaders()::remove);
        getHeaders().remove(HttpHeaders.CONTENT_LENGTH);
        getHeaders().remove(HttpHeaders.TRANSFER_ENCODING);
        return OpenAiErrors.write(getDelegate(), to, "server_error", code, message);
    }

    private static long number(String v) {
        if (v == null) return -1;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public boolean pushedBack() {
        return pushedBack;
    }

    /** A 5xx held back for another provider to serve the call (nothing was sent to the client). */
    public boolean failedOver() {
        return failedOver;
    }

    /** The provider's status and headers have arrived (its first byte): what a first-byte timeout waits for. */
    public boolean begun() {
        return status != 0;
    }

    public int status() {
        return status;
    }

    /** The answer was cut for silence or slowness. */
    public boolean timedOut() {
        return timedOut;
    }

    public long retryAfterMs() {
        return retryAfterMs;
    }

    public long remainingRequests() {
        return remainingRequests;
    }

    public long remainingTokens() {
        return remainingTokens;
    }

    public long resetMs() {
        return resetMs;
    }
}
