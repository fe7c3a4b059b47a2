package dev.sluice.gateway.surface;

import dev.sluice.gateway.api.OpenAiErrors;
import dev.sluice.gateway.api.RequestBodyTooLarge;
import dev.sluice.gateway.support.Causes;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The door of the tenant API: every request whose path starts with {@code /v1} is matched
 * against {@link EndpointTable} by {@link ApiSurface} before routing, so a traversal, an
 * unknown path, a wrong method or a body of the wrong type gets an OpenAI-shaped 4xx, costs no
 * quota, and never reaches the provider or another handler. A web filter, not a route filter:
 * paths the route does not match are answered too. A matched request goes on as its operation
 * takes it: only the query parameters it takes, a body within its limit (a declared length over
 * it is a 413 at once, a streamed one is cut with a 413 where it passes it), no body where it
 * takes none; its operation is left on the exchange ({@link MatchedOperation#ATTRIBUTE}).
 */
public final class ApiSurfaceFilter implements WebFilter, Ordered {
    /**
     * A refused request's body is read and dropped, up to this much and this long, before the
     * answer: a server that answers and closes while the body is still arriving makes the
     * client's TCP stack reset the connection, and the client sees the reset, not the answer.
     */
    static final long DRAIN_BYTES = 1 << 20;

    static final Duration DRAIN_TIME = Duration.ofMillis(500);

    private final EndpointTable table;

    public ApiSurfaceFilter(EndpointTable table) {
        this.table = table;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String rawPath = request.getURI().getRawPath();
        if (rawPath == null || !rawPath.startsWith("/v1")) return chain.filter(exchange);
        ApiSurface.Verdict verdict = ApiSurface.decide(
                table, request.getMethod().name(), rawPath, request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
        ApiSurface.Refusal refusal = verdict.refusal();
        if (refusal != null) {
            if (refusal.allow() != null) exchange.getResponse().getHeaders().set(HttpHeaders.ALLOW, refusal.allow());
            return refuse(exchange, refusal.status(), refusal.code(), refusal.message());
        }
        MatchedOperation matched = verdict.matched();
        Operation op = matched.operation();
        long declared = request.getHeaders().getContentLength();
        if (op.body() != BodyType.NONE && declared > op.maxBodyBytes()) {
            return refuse(exchange, HttpStatus.CONTENT_TOO_LARGE, "request_too_large", tooLarge(op));
        }
        MatchedOperation.ATTRIBUTE.set(exchange, matched);
        ServerHttpRequest passed = asTaken(request, op);
        ServerWebExchange next =
                passed == request ? exchange : exchange.mutate().request(passed).build();
        // A body the operation takes none of is read and dropped first: left unread, closing the
        // connection after the answer would reset it, and the client lose the answer.
        Mono<Void> before = op.body() == BodyType.NONE && hasBody(request) ? drained(request.getBody()) : Mono.empty();
        return before.then(Mono.defer(() -> chain.filter(next)))
                .onErrorResume(e -> Causes.any(e, t -> t instanceof RequestBodyTooLarge), e -> {
                    if (exchange.getResponse().isCommitted()) return Mono.error(e);
                    return OpenAiErrors.write(
                            exchange,
                            HttpStatus.CONTENT_TOO_LARGE,
                            "invalid_request_error",
                            "request_too_large",
                            tooLarge(op),
                            Map.of());
                });
    }

    private static String tooLarge(Operation op) {
        return "The request body is larger than this gateway accepts for " + op + " (" + op.maxBodyBytes() + " bytes).";
    }

    /** The request as the operation takes it: its query parameters only, its body bounded (or none). */
    private static ServerHttpRequest asTaken(ServerHttpRequest request, Operation op) {
        URI uri = request.getURI();
        String query = uri.getRawQuery();
        String kept = query == null ? null : keptQuery(query, op);
        ServerHttpRequest r = request;
        if (query != null && !query.equals(kept)) {
            URI rebuilt = UriComponentsBuilder.fromUri(uri)
                    .replaceQuery(kept)
                    .build(true)
                    .toUri();
            r = request.mutate().uri(rebuilt).build();
        }
        if (!hasBody(request)) return r;
        if (op.body() == BodyType.NONE) return withoutBody(r);
        return bounded(r, op.maxBodyBytes());
    }

    private static boolean hasBody(ServerHttpRequest request) {
        return request.getHeaders().getContentLength() > 0
                || request.getHeaders().containsHeader(HttpHeaders.TRANSFER_ENCODING);
    }

    /**
     * The pairs of {@code rawQuery} whose (decoded) name the operation takes, as they were sent;
     * null when none is left. A pair that does not decode is dropped with the rest.
     */
    static String keptQuery(String rawQuery, Operation op) {
        if (op.query().isEmpty()) return null;
        StringJoiner kept = new StringJoiner("&");
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name;
            try {
                name = UriUtils.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException undecodable) {
                continue;
            }
            if (op.takesParameter(name)) kept.add(pair);
        }
        return kept.length() == 0 ? null : kept.toString();
    }

    /** A body on an operation that takes none is not forwarded (a GET, a DELETE, a cancel). */
    private static ServerHttpRequest withoutBody(ServerHttpRequest request) {
        ServerHttpRequest headersOnly = request.mutate()
                .headers(h -> {
                    h.remove(HttpHeaders.CONTENT_LENGTH);
                    h.remove(HttpHeaders.TRANSFER_ENCODING);
                })
                .build();
        return new ServerHttpRequestDecorator(headersOnly) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.empty();
            }
        };
    }

    /**
     * The body counted as it streams: the buffer that passes {@code limit} is not forwarded; what
     * follows is drained (as a refusal's is) and the body ends with {@link RequestBodyTooLarge},
     * which comes back here as a 413.
     */
    private static ServerHttpRequest bounded(ServerHttpRequest request, long limit) {
        return new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.defer(() -> {
                    long[] seen = {0};
                    boolean[] crossed = {false};
                    // One cut only: the buffer that crosses the limit opens the window that holds the whole rest,
                    // drained before the error (a window per later buffer would stop draining at the first).
                    return super.getBody()
                            .windowUntil(
                                    buffer -> !crossed[0]
                                            && (crossed[0] = (seen[0] += buffer.readableByteCount()) > limit),
                                    true)
                            .index()
                            .concatMap(w -> w.getT1() == 0
                                    ? w.getT2()
                                    : drained(w.getT2()).then(Mono.<DataBuffer>error(new RequestBodyTooLarge(limit))));
                });
            }
        };
    }

    private static Mono<Void> refuse(ServerWebExchange exchange, HttpStatus status, String code, String message) {
        return drained(exchange.getRequest().getBody())
                .then(Mono.defer(
                        () -> OpenAiErrors.write(exchange, status, "invalid_request_error", code, message, Map.of())));
    }

    /** Reads and drops {@code body}, up to {@link #DRAIN_BYTES} and {@link #DRAIN_TIME}: before any refusal's answer. */
    static Mono<Void> drained(Flux<DataBuffer> body) {
        return body.scan(0L, (total, buffer) -> {
                    long read = total + buffer.readableByteCount();
                    DataBufferUtils.release(buffer);
                    return read;
                })
                .takeUntil(total -> total >= DRAIN_BYTES)
                .then()
                .timeout(DRAIN_TIME, Mono.empty())
                .onErrorResume(e -> Mono.empty());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }
}
