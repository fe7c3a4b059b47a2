package dev.sluice.gateway.dispatch;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Sees the provider's answer before the client does. A 429 or 503 is the provider pushing
 * back: its body is drained and dropped, nothing is committed, so the request can go back in
 * line and try again (upstream 429/503 never reach the tenant raw). Any other answer passes.
 * It also reads the provider's own {@code x-ratelimit-remaining-*} before they are replaced by
 * the tenant's.
 */
final class UpstreamAnswer extends ServerHttpResponseDecorator {
    private volatile boolean pushedBack;
    private volatile long retryAfterMs = -1;
    private volatile int status;
    private volatile long remainingRequests = -1;
    private volatile long remainingTokens = -1;
    private volatile long resetMs = -1;

    UpstreamAnswer(ServerHttpResponse delegate) {
        super(delegate);
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return inspect() ? drain(Flux.from(body)) : super.writeWith(body);
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return inspect() ? drain(Flux.from(body).concatMap(Flux::from)) : super.writeAndFlushWith(body);
    }

    /** Reads status and headers as the provider sent them; true when this answer is a push-back. */
    private boolean inspect() {
        HttpStatusCode code = getStatusCode();
        status = code == null ? 200 : code.value();
        HttpHeaders h = getHeaders();
        remainingRequests = number(h.getFirst("x-ratelimit-remaining-requests"));
        remainingTokens = number(h.getFirst("x-ratelimit-remaining-tokens"));
        resetMs = Math.max(OpenAiDurations.parseMs(h.getFirst("x-ratelimit-reset-requests")),
                OpenAiDurations.parseMs(h.getFirst("x-ratelimit-reset-tokens")));
        if (status == 429 || status == 503) {
            pushedBack = true;
            long ms = number(h.getFirst("retry-after-ms"));
            retryAfterMs = ms >= 0 ? ms : OpenAiDurations.parseMs(h.getFirst(HttpHeaders.RETRY_AFTER));
            return true;
        }
        return false;
    }

    private static Mono<Void> drain(Flux<? extends DataBuffer> body) {
        return body.doOnNext(DataBufferUtils::release).then(); // consumed, so the connection goes back to the pool
    }

    private static long number(String v) {
        if (v == null) return -1;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    boolean pushedBack() {
        return pushedBack;
    }

    int status() {
        return status;
    }

    long retryAfterMs() {
        return retryAfterMs;
    }

    long remainingRequests() {
        return remainingRequests;
    }

    long remainingTokens() {
        return remainingTokens;
    }

    long resetMs() {
        return resetMs;
    }
}
